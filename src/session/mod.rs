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
use std::time::Duration;

use crate::error::{Context, Error, Result};
use crate::files::dataset::{self, Dataset};
use crate::files::scratch::Scratch;
use crate::measure::environment;
use crate::plan::Plan;
use crate::report::Exports;
use crate::results::{InterferenceSettings, ProfileSettings, RawResults, Reproduction, Settings};
use crate::runner::journal::Journal;
use crate::runner::{self, RunnerOptions};
use crate::stats::RunResults;

pub mod dry_run;
pub mod map;
mod setup;

pub use setup::planned_file_sizes;

/// Exit status of a run stopped by SIGINT or SIGTERM.
pub const EXIT_INTERRUPTED: u8 = 130;

/// Where and how a session runs its plan: everything but the plan itself.
#[derive(Clone, Debug, Default)]
pub struct SessionConfig {
    /// faultline's data directory (generated files, journals, scratch).
    pub data_dir: PathBuf,
    /// The user's file to measure instead of generated ones (read only).
    pub file: Option<PathBuf>,
    /// The command running the session (`run`, `reproduce`, `calibrate`):
    /// recorded in the journal, and a journal of another command is not
    /// resumed.
    pub kind: crate::runner::journal::JournalKind,
    /// The other files the command reads, each with the flag that named it
    /// (`--baseline`, `--plan`, `--trace`): no output may be any of them.
    pub inputs: Vec<(String, PathBuf)>,
    /// The generated PPM image a scale plan reads (width, height), when it
    /// reads no user file.
    pub image: Option<(u32, u32)>,
    /// Seed of generated content.
    pub seed: u64,
    /// Whether the user chose the file sizes with `--size` (`Some(true)`),
    /// left it at its default (`Some(false)`), or has no such flag (a
    /// preset's own sizes: `None`): a message that advises a smaller size
    /// names the flag as typed, says it was the default, or does not offer it.
    pub size_given: Option<bool>,
    /// `--dir`: where write trials get a scratch directory of their own.
    pub scratch_parent: Option<PathBuf>,
    /// `--keep`: keep the files write trials wrote.
    pub keep: bool,
    /// `--keep-output`: where scale trials write their scaled image.
    pub keep_output: Option<PathBuf>,
    /// Cold means drop_caches (root) rather than evicting the file.
    pub drop_caches: bool,
    /// A trial running longer than this is killed and reported.
    pub trial_timeout: Option<Duration>,
    /// Where the journal goes (default: beside the JSON export, else in
    /// `<data-dir>/runs/`).
    pub journal: Option<PathBuf>,
    /// The exports, rewritten after every group.
    pub exports: Exports,
    /// The study a `faultline reproduce` session replays, and how.
    pub reproduction: Option<Reproduction>,
    /// `--keep-journal`: keep the journal of a run that completed (it is
    /// removed otherwise; an interrupted run's always stays).
    pub keep_journal: bool,
    /// `--quiet`: no progress bar.
    pub quiet: bool,
    /// How interference is judged and handled; `None`: as the journal says
    /// on `--resume`, else the defaults.
    pub interference: Option<InterferenceSettings>,
    /// Precision target, verdict adjustment and shortest trial. A resumed
    /// run takes them from its journal (journals written before they were
    /// stored: from here).
    pub statistics: crate::plan::precision::Statistics,
    /// `--fdr` given with `--resume`: the verdicts of the resumed run are
    /// adjusted this way instead of as its journal says.
    pub resume_adjustment: Option<crate::plan::precision::Adjustment>,
    /// Sample every trial's main loop (`--profile`), at this rate and in the
    /// mode [`crate::measure::profile::probe`] decided.
    pub profile: Option<ProfileSettings>,
    /// After the planned runs, the rule that asks for more paired runs of
    /// some cases until it is satisfied (a study's claims settled).
    pub settle: Option<Settle>,
}

/// A [`crate::stats::stopping::SettleRule`], shared.
#[derive(Clone)]
pub struct Settle(pub Arc<dyn crate::stats::stopping::SettleRule>);

impl std::fmt::Debug for Settle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Settle(..)")
    }
}

/// A prepared run: its plan, files, scratch directory and journal.
pub struct Session {
    guard: setup::Guard,
    plan: Plan,
    files: std::collections::BTreeMap<u64, Dataset>,
    drop_caches: bool,
    command_line: Vec<String>,
    journal: Journal,
    resume: runner::Resume,
    exports: Exports,
    scratch: Option<Arc<Scratch>>,
    reproduction: Option<Reproduction>,
    trial_timeout: Option<Duration>,
    keep_output: Option<PathBuf>,
    keep_journal: bool,
    interference: InterferenceSettings,
    profile: Option<ProfileSettings>,
    fingerprints: Vec<(PathBuf, crate::files::fingerprint::Fingerprint, bool)>,
    warnings: Vec<String>,
    quiet: bool,
    statistics: crate::plan::precision::Statistics,
    kind: crate::runner::journal::JournalKind,
    settle: Option<Settle>,
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
    /// Prepares a new run of `plan`: checks the plan against this machine,
    /// generates (or checks) the files it reads, prepares the scratch
    /// directory of its write cases and creates its journal.
    pub fn fresh(plan: Plan, config: &SessionConfig) -> Result<Session> {
        install_signal_handlers()?;
        setup::fresh(plan, config)
    }

    /// Prepares the rest of an interrupted run from its journal: the plan,
    /// files and exports are the journal's (exports given in `config`
    /// replace them), and only the missing trials will run.
    pub fn resume(journal: &Path, config: &SessionConfig) -> Result<Session> {
        install_signal_handlers()?;
        setup::resumed(journal, config)
    }

    /// Checks `plan` and `config` as [`Session::fresh`] does before anything
    /// is generated or created, touching nothing: what `--dry-run` refuses
    /// is what the run would refuse.
    pub fn check(plan: &Plan, config: &SessionConfig) -> Result<()> {
        setup::check_fresh(plan, config, &setup::journal_path(config)).map(|_| ())
    }

    /// The files a fresh session of `plan` writes besides its journal, each
    /// with the flag that names it.
    pub fn written_files(plan: &Plan, config: &SessionConfig) -> Vec<(&'static str, PathBuf)> {
        let timelines = plan.cases.iter().any(|c| c.duration_s.is_some());
        setup::written_files(config, &config.exports, timelines)
    }

    /// The plan this session runs.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Runs every trial still to run, rewriting the exports after every
    /// group, and returns the results. A first SIGINT or SIGTERM stops
    /// after the running trial (which is stopped too); a second exits at once.
    pub fn run(self) -> Result<Finished> {
        let Session {
            guard,
            plan,
            files,
            drop_caches: asked_drop_caches,
            command_line,
            mut journal,
            resume,
            exports,
            scratch,
            reproduction,
            trial_timeout,
            keep_output,
            keep_journal,
            interference,
            profile,
            fingerprints,
            warnings: setup_warnings,
            quiet,
            statistics,
            kind,
            settle,
        } = self;
        let file_sets = setup::generate_file_sets(&plan, &guard.dir)?;
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
        let resume_command = match kind {
            crate::runner::journal::JournalKind::Calibrate => {
                "faultline calibrate (a calibration starts again; it does not resume)".to_string()
            }
            _ => resume_command(reproduction.as_ref(), journal.path()),
        };
        // At most one control trial per measured run (--runs 2 gets 2).
        let profile = profile.map(|mut p| {
            p.control_trials = p.control_trials.min(plan.runs);
            p
        });
        let settings = Settings {
            file: measured.clone(),
            generated,
            scratch_dir: scratch.as_ref().map(|s| s.dir().to_path_buf()),
            runs: plan.runs,
            warmup: plan.warmup,
            order: plan.order,
            metric: plan.metric,
            drop_caches: asked_drop_caches,
            seed: plan.seed,
            reproduction,
            interference: Some(interference),
            statistics,
            profile: profile.clone(),
        };
        let mut warnings = setup_warnings;
        let mut drop_caches = asked_drop_caches;
        if drop_caches && crate::system::current_uid() != 0 {
            let w = "--drop-caches needs root; falling back to evicting the file with posix_fadvise(DONTNEED)".to_string();
            crate::console::warning(&w);
            warnings.push(w);
            drop_caches = false;
        }
        let environment = environment::capture(Some(&measured));
        if let Some(n @ 1..) = environment.damon_kdamonds_running {
            let w = format!(
                "{n} DAMON kdamond(s) running: they may reclaim idle page-cache pages between \
                 and during trials (faultline tops a warm cache up before each trial and \
                 records residency before and after it). For steadier warm numbers, stop them \
                 for the run as root: `echo off > /sys/kernel/mm/damon/admin/kdamonds/N/state` \
                 (or `damo stop`; DAMON_RECLAIM: `echo N > \
                 /sys/module/damon_reclaim/parameters/enabled`)"
            );
            crate::console::warning(&w);
            warnings.push(w);
        }
        for w in crate::plan::notes::warnings(&plan) {
            crate::console::warning(&w);
            warnings.push(w);
        }

        install_signal_handlers()?;
        // A stopped run still writes its exports, whole.
        crate::system::finish_writes_on_stop();
        let stop = Arc::clone(crate::system::stop_flag());
        // The running program itself, through /proc/self/exe: a binary
        // replaced or removed under a long run (an upgrade) does not change
        // what the remaining trials run.
        let own = std::path::Path::new("/proc/self/exe");
        let exe = if own.exists() {
            own.to_path_buf()
        } else {
            std::env::current_exe()
                .map_err(|e| Error::Trial(format!("finding faultline's own binary: {e}")))?
        };
        let options = RunnerOptions {
            exe,
            drop_caches,
            trial_timeout,
            stop: Arc::clone(&stop),
            scratch: scratch.clone(),
            keep_output,
            interference,
            active_runs: register_run(&guard.dir, &mut warnings),
            profile: profile.as_ref().map(|p| p.request),
            profile_control: profile.as_ref().map_or(0, |p| p.control_trials),
            fingerprints,
            file_sets,
            time_budget: statistics
                .precision
                .and_then(|p| p.max_time_s)
                .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok()),
        };
        let trials = plan.trials();
        let progress = indicatif::ProgressBar::with_draw_target(
            Some(trials),
            if quiet {
                indicatif::ProgressDrawTarget::hidden()
            } else {
                indicatif::ProgressDrawTarget::stderr()
            },
        );
        progress.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {prefix}  {msg}")
                .expect("valid template"),
        );
        // A study's run carries its claims' verdicts in every export.
        let study = settings
            .reproduction
            .as_ref()
            .and_then(|r| crate::studies::find(&r.preset));
        let assemble = |raw: &RawResults| {
            let mut raw = raw.clone();
            raw.warnings.splice(0..0, warnings.iter().cloned());
            let mut results = RunResults::assemble(
                &plan,
                &raw,
                environment.clone(),
                settings.clone(),
                command_line.clone(),
            );
            if let Some(preset) = &study {
                results.claims = crate::studies::judge_claims(preset.as_ref(), &results);
            }
            results
        };
        let mut export_warned = false;
        let started = std::time::Instant::now();
        let group_count = plan.groups().len();
        let more_runs = |g: usize, raw: &RawResults| {
            let Some(precision) = &statistics.precision else {
                return runner::MoreRuns::default();
            };
            let in_time = precision
                .group_deadline_s(g, group_count)
                .is_none_or(|deadline| started.elapsed().as_secs_f64() < deadline);
            runner::MoreRuns {
                another: in_time
                    && crate::stats::stopping::group_needs_more(
                        &plan,
                        &raw.samples,
                        g,
                        precision,
                        interference.exclude,
                    ),
                forecast: crate::stats::stopping::group_forecast(
                    &plan,
                    &raw.samples,
                    g,
                    precision,
                    interference.exclude,
                ),
            }
        };
        // The rule's budget counts the whole run's time, from its first trial.
        let settle_runs = |raw: &RawResults| -> Vec<usize> {
            let Some(Settle(rule)) = &settle else {
                return Vec::new();
            };
            rule.cases_needing_runs(&assemble(raw), started.elapsed().as_secs_f64())
        };
        let mut kept = resume.done.len();
        let outcome = runner::run_trials(
            &plan,
            &files,
            &options,
            &progress,
            resume,
            |entry| {
                journal.append(entry)?;
                kept += 1;
                Ok(())
            },
            |raw| {
                if let Err(e) = exports.write_all(&assemble(raw)) {
                    if !std::mem::replace(&mut export_warned, true) {
                        progress.suspend(|| eprintln!("warning: could not write the exports: {e}"));
                    }
                }
            },
            more_runs,
            settle_runs,
        );
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
        exports
            .write_all(&results)
            .context("writing the exports")
            .map_err(after_trials)?;
        print_interference(&results);
        setup::finish_scratch(scratch.as_deref());
        let journal_path = journal.path().to_path_buf();
        // A complete run's journal holds nothing its results do not: it goes,
        // unless asked to stay. An interrupted run keeps it for --resume.
        let journal_removed = raw.complete && !keep_journal && {
            match journal.remove() {
                Ok(()) => true,
                Err(e) => {
                    crate::console::warning(&e.to_string());
                    false
                }
            }
        };
        Ok(Finished {
            interrupted: stop.load(Ordering::SeqCst) && !raw.complete,
            results,
            journal: journal_path,
            resume_command,
            journal_removed,
        })
    }
}

/// Prints, once the trials are done, one interference warning with the
/// cases it concerns as a table, and what `--exclude-interfered` left out
/// (the exports hold them too).
fn print_interference(results: &RunResults) {
    use crate::stats::interference::exclusion_note;
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
