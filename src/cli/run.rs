//! `faultline run`: its flags (the factor flags and their translation into
//! the library's `Factors` are in [`super::sweep_args`]), their translation
//! into [`RunSpec`], and the run itself.
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;

use faultline::files::image;
use faultline::pattern::trace::{Follow, LoadedTrace, TraceOptions, TraceRef};
use faultline::pattern::Pattern;
use faultline::plan::factors::DEFAULT_SIZE;
use faultline::session::{self, RunSpec, Session};
use faultline::workload::WorkloadKind;

/// Flags of `faultline run`. Each factor takes a comma-separated list; the
/// run is the Cartesian product of the lists.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The factors and what they are measured on.
    #[command(flatten)]
    pub sweep: super::sweep_args::SweepArgs,
    /// For cold trials, write /proc/sys/vm/drop_caches (root) instead of evicting just the file.
    #[arg(long)]
    pub drop_caches: bool,
    /// Kill a trial that runs longer than this many seconds (0.001 to a year).
    #[arg(long, value_name = "SECONDS", value_parser = faultline::size::parse_seconds, allow_negative_numbers = true)]
    pub trial_timeout: Option<Duration>,
    /// faultline's data directory [default: $XDG_CACHE_HOME/faultline].
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Continue an interrupted run from its journal: only the missing trials run,
    /// and the exports come out as from an uninterrupted run. The plan, its --precision and
    /// --min-trial-time come from the journal.
    #[arg(long, value_name = "JOURNAL", conflicts_with_all = [
        "method", "pattern", "block", "size", "file", "workload", "cache", "warm_by", "populate",
        "advice", "share", "open_sync", "msync", "stdio_buffer", "iov", "depth", "uring_registered", "latency", "seed", "runs", "warmup", "order", "metric", "drop_caches", "journal",
        "factor", "enlarge", "scale_unit", "image", "threads", "thread_mode", "procs",
        "trace", "fadvise", "duration", "memory_budget", "device_rate", "precision", "min_trial_time",
        "rate", "think_time", "pair_across_sync", "read_share", "files", "file_size",
    ])]
    pub resume: Option<PathBuf>,
    /// Where to write the journal [default: beside the JSON export, else <data-dir>/runs/].
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,
    /// The exports.
    #[command(flatten)]
    pub exports: super::ExportArgs,
    /// The plan file, dry run and journal flags.
    #[command(flatten)]
    pub plan: super::plan_args::PlanArgs,
    /// Output: unit, colour, verbosity, baseline.
    #[command(flatten)]
    pub output: super::output_args::RunOutputArgs,
    /// Interference: the threshold, retries, exclusion.
    #[command(flatten)]
    pub interference: super::interference_args::InterferenceArgs,
    /// Precision, verdict adjustment and trial length.
    #[command(flatten)]
    pub statistics: super::precision_args::PrecisionArgs,
    /// The profile.
    #[command(flatten)]
    pub profile: super::ProfileArgs,
}

impl RunArgs {
    /// The trace of `--trace`, parsed (its errors name the file and line).
    /// `sizes` are the files it will be replayed on: with one, an strace
    /// `lseek(.., SEEK_END)` whose result was not recorded takes its size.
    fn load_trace(&self, sizes: &[u64]) -> faultline::error::Result<Option<LoadedTrace>> {
        let Some(path) = &self.sweep.trace else {
            return Ok(None);
        };
        let follow = match (&self.sweep.trace_fd, &self.sweep.trace_path) {
            (Some(fd), _) => Follow::Fd(*fd),
            (None, Some(p)) => Follow::Path(p.clone()),
            (None, None) => Follow::Busiest,
        };
        let options = TraceOptions {
            format: self.sweep.trace_format,
            follow,
            file_size: (sizes.len() == 1).then(|| sizes[0]),
        };
        let (reference, trace) = TraceRef::open(path, &options)?;
        Ok(Some(LoadedTrace { reference, trace }))
    }

    /// Where and how the session runs.
    pub fn session_config(&self) -> RunSpec {
        let scales = self.sweep.workload.contains(&WorkloadKind::Scale);
        let exports = self.exports.exports();
        RunSpec {
            data_dir: session::data_dir(self.data_dir.clone()),
            file: self.sweep.file.clone(),
            kind: Some(faultline::runner::journal::JournalKind::Run),
            inputs: [
                ("--baseline", &self.output.baseline),
                ("--plan", &self.plan.plan),
                ("--trace", &self.sweep.trace),
            ]
            .into_iter()
            .filter_map(|(flag, path)| path.clone().map(|p| (flag.to_string(), p)))
            .collect(),
            image: scales.then(|| self.sweep.image.unwrap_or(image::DEFAULT_IMAGE)),
            seed: self.sweep.seed,
            size_given: Some(!self.sweep.size.is_empty()),
            scratch_parent: self.sweep.dir.clone(),
            keep: self.sweep.keep,
            keep_output: self.sweep.keep_output.clone(),
            drop_caches: self.drop_caches,
            trial_timeout: self.trial_timeout,
            journal: self.journal.clone(),
            export_json: exports.json,
            export_csv: exports.csv,
            export_markdown: exports.markdown,
            reproduction: None,
            // A journal named with --journal was asked for: it stays.
            keep_journal: self.plan.keep_journal || self.journal.is_some(),
            quiet: self.output.output.quiet,
            interference: self.interference.settings(),
            // A resumed run's plan comes from its journal: the default
            // precision is not guessed for it. One rule set otherwise:
            // without --runs, runs are added until the precision is reached.
            statistics: Some(
                self.statistics
                    .statistics(self.resume.is_none() && self.sweep.runs.is_none()),
            ),
            resume_adjustment: self.resume.as_ref().and(self.statistics.fdr),
            journal_label: self.plan.run_name.clone(),
            ..RunSpec::default()
        }
    }

    /// File sizes to generate (none when --file is given).
    fn sizes(&self) -> Vec<u64> {
        if self.sweep.file.is_some() {
            Vec::new()
        } else if self.sweep.size.is_empty() {
            vec![DEFAULT_SIZE]
        } else {
            let mut seen = std::collections::HashSet::new();
            self.sweep
                .size
                .iter()
                .copied()
                .filter(|s| seen.insert(*s))
                .collect()
        }
    }
}

/// Runs `faultline run`: a fresh plan from the flags, the rest of one from
/// its journal (a plan's named runs go to `plan_runs`).
pub fn execute(args: &RunArgs) -> anyhow::Result<ExitCode> {
    if let Some(toml) = &args.plan.printed {
        print!("{toml}");
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(journal) = &args.resume {
        let baseline = baseline(args)?;
        let session = Session::resume(journal, &args.session_config())?;
        return finish(args, session, baseline.as_ref());
    }
    let ready = ready(args)?;
    if args.plan.dry_run {
        // The same refusals as the run's, before anything is said.
        return super::plan_args::print_dry_run("run", &ready.plan, &ready.config);
    }
    start(args, ready)
}

/// A fresh run, planned and checked: all that is decided before its
/// session starts.
pub struct Ready {
    /// What it runs.
    pub plan: faultline::plan::Plan,
    /// Where and how.
    pub config: faultline::runner::spec::RunSpec,
    /// The export `--baseline` names, read.
    pub baseline: Option<faultline::results::RunResults>,
    /// The trace it replays, described.
    trace: Option<String>,
}

/// The export `--baseline` names, read, and refused when its numbers do
/// not compare with this run's.
fn baseline(args: &RunArgs) -> anyhow::Result<Option<faultline::results::RunResults>> {
    let Some(path) = &args.output.baseline else {
        return Ok(None);
    };
    let old = super::compare::read_export(path).context("--baseline")?;
    if args.resume.is_none() && old.settings.metric != args.sweep.metric {
        return Err(faultline::error::Error::Plan(format!(
            "--baseline {}: it compared the {} time and this run compares the {} time (--metric); \
             their numbers do not compare",
            path.display(),
            format!("{:?}", old.settings.metric).to_lowercase(),
            format!("{:?}", args.sweep.metric).to_lowercase()
        ))
        .into());
    }
    Ok(Some(old))
}

/// Plans a fresh run from its flags: every refusal of the flags, the
/// baseline and the trace comes here, before anything runs.
pub fn ready(args: &RunArgs) -> anyhow::Result<Ready> {
    let config = args.session_config();
    // A bad baseline is refused before anything runs.
    let baseline = baseline(args)?;
    let sizes = session::planned_file_sizes(&config, &args.sizes())?;
    let mut factors = args.sweep.factors();
    factors.trace = args.load_trace(&sizes)?;
    if let Some(limit) = args.sweep.memory_budget {
        let probe = faultline::plan::memory_budget::probe();
        factors.memory_budget = Some(faultline::plan::memory_budget::for_run(&probe, limit)?);
    }
    if factors.patterns.contains(&Pattern::Chase) && factors.depths.iter().any(|&d| d > 1) {
        faultline::console::note(
            "chase runs io_uring at depth 1 and preadv one block per call: \
             each read needs the bytes of the one before",
        );
    }
    // Refused before anything runs: no I/O cgroup here (not root), or
    // several trial processes (only the one trial child joins the cgroup).
    let device_rate = match args.sweep.device_rate {
        Some(_) if args.sweep.procs.is_some_and(|n| n > 1) => {
            return Err(faultline::error::Error::Plan(
                "--device-rate throttles the one trial process; not with --procs".into(),
            )
            .into())
        }
        Some(rate) => Some(faultline::plan::device_rate::for_run(
            &faultline::plan::device_rate::probe(),
            rate,
        )?),
        None => None,
    };
    if device_rate.is_some() {
        // The file read (or the data directory it is generated in) and the
        // write methods' directory must be on a disk the throttle can limit.
        let read_from = args.sweep.file.as_deref().unwrap_or(&config.data_dir);
        for place in std::iter::once(read_from).chain(args.sweep.dir.as_deref()) {
            faultline::plan::device_rate::device_of(place)?;
        }
    }
    let mut plan = factors.plan(&sizes)?;
    for case in &mut plan.cases {
        case.device_rate = device_rate;
    }
    if let Some(note) = args
        .statistics
        .apply(&config.statistics_or_default(), &mut plan)?
    {
        faultline::console::note(&note);
    }
    Ok(Ready {
        plan,
        config,
        baseline,
        trace: factors.trace.as_ref().map(|t| t.reference.describe()),
    })
}

/// Starts the session of a run [`ready`] planned, runs it, and prints what
/// it measured.
pub fn start(args: &RunArgs, ready: Ready) -> anyhow::Result<ExitCode> {
    let Ready {
        plan,
        mut config,
        baseline,
        trace,
    } = ready;
    config.set_profile(args.profile.decide()?);
    let session = Session::fresh(plan, &config)?;
    // Once the plan passed every check, so that a refusal is one line.
    if let Some(t) = &trace {
        faultline::console::labelled("trace", t);
    }
    finish(args, session, baseline.as_ref())
}

/// Runs `session` and prints its results (and the comparison with the
/// baseline).
fn finish(
    args: &RunArgs,
    session: Session,
    baseline: Option<&faultline::results::RunResults>,
) -> anyhow::Result<ExitCode> {
    super::plan_args::warn_without_verdicts(session.plan());
    let finished = session.run()?;
    let code = super::print_finished(&finished, &args.output.output);
    if let Some(old) = baseline {
        super::compare::print_baseline(old, &finished.results, &args.output.output);
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::super::{Cli, Command};
    use super::*;
    use clap::Parser;
    use faultline::method::{MethodKind, Populate};
    use faultline::plan::factors::Factors;
    use faultline::plan::CacheState;
    use proptest::prelude::*;

    fn run_args(extra: &[String]) -> Result<RunArgs, clap::Error> {
        let mut argv = vec!["faultline".to_string(), "run".to_string()];
        argv.extend(extra.iter().cloned());
        Cli::try_parse_from(argv).map(|cli| match cli.command {
            Command::Run(args) => *args,
            other => panic!("parsed as {other:?}"),
        })
    }

    #[test]
    fn the_flags_become_the_library_factors() {
        let args: Vec<String> = "--method read,mmap --pattern seq,random --block 4k,64k --populate none,map --advice normal,random --cache warm --latency"
            .split(' ')
            .map(String::from)
            .collect();
        let factors = run_args(&args).unwrap().sweep.factors();
        assert_eq!(factors.methods, [MethodKind::Read, MethodKind::Mmap]);
        assert_eq!(factors.blocks, [4096, 65536]);
        assert_eq!(factors.populates, [Populate::None, Populate::Map]);
        assert_eq!(factors.caches, [CacheState::Warm]);
        assert_eq!(factors.latency, [true]);
        let defaults = run_args(&[]).unwrap().sweep.factors();
        assert_eq!(
            defaults,
            Factors::default(),
            "no flags: the default comparison"
        );
    }

    /// Every flag of `run` (and a few of its values), so that generated
    /// argument lists reach every parser.
    const FLAGS: &[&str] = &[
        "--method",
        "--pattern",
        "--block",
        "--size",
        "--file",
        "--workload",
        "--fill",
        "--sync",
        "--sync-call",
        "--target",
        "--size-with",
        "--dir",
        "--keep",
        "--cache",
        "--warm-by",
        "--populate",
        "--advice",
        "--share",
        "--stdio-buffer",
        "--iov",
        "--depth",
        "--uring-registered",
        "--latency",
        "--factor",
        "--enlarge",
        "--scale-unit",
        "--image",
        "--keep-output",
        "--threads",
        "--thread-mode",
        "--procs",
        "--device-rate",
        "--seed",
        "--runs",
        "--warmup",
        "--order",
        "--metric",
        "--drop-caches",
        "--trial-timeout",
        "--data-dir",
        "--resume",
        "--journal",
        "--export-json",
        "--export-csv",
        "--export-markdown",
    ];
    const VALUES: &[&str] = &[
        "read,mmap",
        "write,mmap-write",
        "seq,random",
        "0",
        "1",
        "-1",
        "4kk",
        "64M",
        "65M",
        "1e400",
        "NaN",
        "inf",
        "-0",
        "0.0001",
        "18446744073709551615",
        "4294967296",
        ",",
        "2,3",
        "-2",
        "scale",
        "fill",
        "touch",
        "10000",
        "10001",
        "1025",
        "257",
        "0x4",
        "1280x1024",
        "x",
        "",
        "warm,cold,as-is",
        "./x",
        "/dev/null",
        "/proc/self/status",
    ];

    fn token() -> impl Strategy<Value = std::ffi::OsString> {
        use std::os::unix::ffi::OsStringExt;
        prop_oneof![
            proptest::sample::select(FLAGS).prop_map(std::ffi::OsString::from),
            proptest::sample::select(VALUES).prop_map(std::ffi::OsString::from),
            "\\PC{0,6}".prop_map(std::ffi::OsString::from),
            proptest::collection::vec(proptest::num::u8::ANY, 0..6).prop_map(|b| {
                std::ffi::OsString::from_vec(b.into_iter().filter(|&c| c != 0).collect())
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Generated argument lists, non-UTF-8 bytes included, through the
        /// real parser and plan building: an error or a plan, never a panic.
        #[test]
        fn no_generated_argument_list_panics(
            pairs in proptest::collection::vec((proptest::sample::select(FLAGS), token()), 0..6),
            loose in proptest::collection::vec(token(), 0..3),
            size in 1u64..(1 << 34),
        ) {
            let mut argv = vec![std::ffi::OsString::from("faultline"), "run".into()];
            for (flag, value) in pairs {
                argv.push(flag.into());
                argv.push(value);
            }
            argv.extend(loose);
            if let Ok(Cli {
                command: Command::Run(args),
                ..
            }) = Cli::try_parse_from(argv)
            {
                let config = args.session_config();
                let _ = args.sizes();
                if let Ok(plan) = args.sweep.factors().plan(&[size]) {
                    prop_assert!(plan.check_bounds().is_ok());
                    let _ = faultline::session::dry_run::describe("run", &plan, &config);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn no_argument_list_panics(tokens in proptest::collection::vec(
            prop_oneof![
                Just("--method".to_string()), Just("--pattern".to_string()), Just("--block".to_string()),
                Just("--size".to_string()), Just("--runs".to_string()), Just("--cache".to_string()),
                Just("--populate".to_string()), Just("--warmup".to_string()), Just("--seed".to_string()),
                Just("read,mmap".to_string()), Just("seq,random".to_string()), Just("0".to_string()),
                Just("-1".to_string()), Just("4kk".to_string()), Just("1".to_string()), Just("64M".to_string()),
                Just("65M".to_string()), Just("18446744073709551615".to_string()), Just(",".to_string()),
                "\\PC{0,6}",
            ],
            0..8,
        ), size in 0u64..(1 << 30)) {
            if let Ok(args) = run_args(&tokens) {
                let _ = args.sweep.factors().plan(&[size.max(1)]);
            }
        }
    }
}
