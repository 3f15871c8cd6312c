//! `faultline run`: its flags, their translation into the library's
//! [`Factors`] and [`RunSpec`], and the run itself.
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;

use faultline::files::image;
use faultline::method::{
    Advice, Fadvise, MethodKind, Msync, OpenSync, Populate, Share, SizeWith, Switch, SyncCall,
    SyncPolicy,
};
use faultline::pattern::trace::{Follow, LoadedTrace, TraceFormat, TraceOptions, TraceRef};
use faultline::pattern::Pattern;
use faultline::plan::factors::{Factors, DEFAULT_SIZE};
use faultline::plan::{CacheState, Metric, OrderPolicy, Target, ThreadMode, WarmBy};
use faultline::session::{self, RunSpec, Session};
use faultline::size::clap_size;
use faultline::workload::{FillContent, ScaleFactor, ScaleUnit, WorkloadKind};

/// Flags of `faultline run`. Each factor takes a comma-separated list; the
/// run is the Cartesian product of the lists.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// I/O methods; the first is the baseline the others are compared with.
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [MethodKind::Read, MethodKind::Mmap])]
    pub method: Vec<MethodKind>,
    /// Block orders: seq, random, random-replace, reverse, stride:N, zipf:THETA, pareto:H,
    /// normal:SIGMA, hotset:P/Q (P% of accesses to Q% of the blocks, spread), hotzone:P/Q (to
    /// the first Q% of the file), chase (each next block from the bytes of the last). Without
    /// --pattern and --block: seq with 16 KiB blocks and random with 4 KiB blocks.
    #[arg(long, value_delimiter = ',')]
    pub pattern: Vec<Pattern>,
    /// Replay the reads (or, for write methods, the writes) recorded in FILE instead of a
    /// generated pattern: a fio iolog (v2, v3), strace output, or offset,length CSV.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["pattern", "block"])]
    pub trace: Option<PathBuf>,
    /// The trace's format [default: told from its first line].
    #[arg(long, value_name = "FORMAT", value_parser = parse_trace_format, requires = "trace")]
    pub trace_format: Option<TraceFormat>,
    /// strace traces: replay the reads of this file descriptor [default: the file read most].
    #[arg(
        long,
        value_name = "FD",
        requires = "trace",
        conflicts_with = "trace_path"
    )]
    pub trace_fd: Option<i32>,
    /// Replay the operations on the traced file with this path (or ending with it)
    /// [default: the file read most].
    #[arg(long, value_name = "PATH", requires = "trace")]
    pub trace_path: Option<String>,
    /// Block sizes, 1 byte to 64 MiB (e.g. 4k,16KiB,1M). Default: 16 KiB for seq, 4 KiB for random.
    #[arg(long, value_delimiter = ',', value_parser = clap_size, allow_negative_numbers = true)]
    pub block: Vec<u64>,
    /// Sizes of generated test files.
    #[arg(long, value_delimiter = ',', value_parser = clap_size, conflicts_with = "file", allow_negative_numbers = true)]
    pub size: Vec<u64>,
    /// Measure this file instead of a generated one (it is only ever read; not with write methods).
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// What is done with each block [default: sum for read methods, fill for write methods].
    #[arg(long, value_delimiter = ',', value_enum)]
    pub workload: Vec<WorkloadKind>,
    /// What write methods write: zeros, or a position-dependent pattern.
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [FillContent::Pattern])]
    pub fill: Vec<FillContent>,
    /// When write methods sync: never, once after the loop, or after every block.
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [SyncPolicy::None])]
    pub sync: Vec<SyncPolicy>,
    /// The call write methods sync with: fsync, fdatasync, or sync_file_range of the block (each)
    /// or the file (end); mmap-write syncs with msync (see --msync).
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [SyncCall::Fsync])]
    pub sync_call: Vec<SyncCall>,
    /// Open the written file with O_DSYNC or O_SYNC, so every write is durable when it returns
    /// (write, pwrite, stdio-write, direct-write, uring-write, uring-direct-write).
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [OpenSync::None])]
    pub open_sync: Vec<OpenSync>,
    /// How mmap-write's msync waits (with --sync end or each): MS_SYNC, or MS_ASYNC.
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [Msync::Sync])]
    pub msync: Vec<Msync>,
    /// What write methods write into: a new file, or an existing preallocated one written over.
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [Target::Fresh])]
    pub target: Vec<Target>,
    /// How mmap-write sizes a fresh file before mapping it: ftruncate (sparse) or fallocate.
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [SizeWith::Truncate])]
    pub size_with: Vec<SizeWith>,
    /// Where write methods write: faultline creates a private directory of its own inside PATH
    /// [default: scratch/ in the data directory].
    #[arg(long, value_name = "PATH")]
    pub dir: Option<PathBuf>,
    /// Keep the files write methods wrote (the last one of each case) instead of removing them.
    #[arg(long)]
    pub keep: bool,
    /// Page-cache state before each trial.
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [CacheState::Warm, CacheState::Cold])]
    pub cache: Vec<CacheState>,
    /// How a warm cache is reached.
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [WarmBy::Seq])]
    pub warm_by: Vec<WarmBy>,
    /// mmap pre-faulting: none, MAP_POPULATE (map) or MADV_POPULATE_READ (madvise).
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [Populate::None])]
    pub populate: Vec<Populate>,
    /// madvise() hint for the mapping.
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [Advice::Normal])]
    pub advice: Vec<Advice>,
    /// MAP_SHARED or MAP_PRIVATE.
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [Share::Shared])]
    pub share: Vec<Share>,
    /// stdio's buffer (std's BufReader capacity), 1 byte to 64 MiB [default: 8 KiB].
    #[arg(long, value_delimiter = ',', value_parser = clap_size)]
    pub stdio_buffer: Vec<u64>,
    /// preadv: consecutive blocks per call, each into its own buffer, 1 to 1024 [default: 4].
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=i64::from(faultline::method::MAX_IOV)))]
    pub iov: Vec<u32>,
    /// io_uring: requests in flight (uring, uring-direct, uring-write, uring-direct-write),
    /// 1 to 256 [default: 1]. A chase runs at depth 1 (each read needs the bytes of the last).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=i64::from(faultline::method::MAX_DEPTH)))]
    pub depth: Vec<u32>,
    /// io_uring: read into or write from registered (fixed) buffers. Alone it means on; `off,on`
    /// measures both.
    #[arg(long, value_delimiter = ',', value_enum, num_args = 0..=1, default_missing_value = "on")]
    pub uring_registered: Vec<Switch>,
    /// Record every operation's latency (p50, p90, p99, p99.9, max). Alone it means on;
    /// `off,on` runs both, side by side, which shows what recording costs.
    #[arg(long, value_delimiter = ',', value_enum, num_args = 0..=1, default_missing_value = "on")]
    pub latency: Vec<Switch>,
    /// `scale` workload: factors, each a case; k reduces by k, -k enlarges by k (e.g. 2,3,4,8).
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub factor: Vec<ScaleFactor>,
    /// `scale` workload: every --factor enlarges (2 means -2).
    #[arg(long)]
    pub enlarge: bool,
    /// `scale` workload: what one pixel is: a whole 3-byte pixel, or one byte as the
    /// 2002 article's listing indexed the image.
    #[arg(long, value_enum, default_value_t = ScaleUnit::Pixel)]
    pub scale_unit: ScaleUnit,
    /// `scale` workload: size of the generated PPM image, WIDTHxHEIGHT [default: 1280x1024].
    #[arg(long, value_name = "WxH", value_parser = faultline::files::image::parse_image_size, conflicts_with = "file")]
    pub image: Option<(u32, u32)>,
    /// `scale` workload: write the scaled image of the last trial to FILE (a P6 PPM).
    #[arg(long, value_name = "FILE")]
    pub keep_output: Option<PathBuf>,
    /// Threads per trial, 1 to 1024 (each list entry is a case).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=i64::from(faultline::plan::threads::MAX_THREADS)))]
    pub threads: Vec<u32>,
    /// How threads share the work: split the blocks between them, or each run the whole workload.
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [ThreadMode::Split], requires = "threads")]
    pub thread_mode: Vec<ThreadMode>,
    /// posix_fadvise() on the opened file in setup, for read, pread, preadv, stdio and uring
    /// (each value its own case; the mmap methods take --advice).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub fadvise: Vec<Fadvise>,
    /// Read for this many seconds per trial instead of one pass (touch workload), reporting
    /// reads per second and a per-second timeline, 1 to 86400.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u32).range(1..=i64::from(faultline::plan::duration::MAX_DURATION_S)))]
    pub duration: Option<u32>,
    /// Paced load: issue the operations (blocks) at this rate, ops per second (2000) or bytes per
    /// second (64M/s), each value a case; every paced case records its latencies. Not with
    /// --threads, --procs or --duration.
    #[arg(long, value_name = "RATE", value_delimiter = ',', value_parser = faultline::plan::pace::parse_rate)]
    pub rate: Vec<faultline::plan::pace::Rate>,
    /// Paced load: wait this many seconds after each operation (0.001 to a year; e.g. 0.005),
    /// each value a case; combines with --rate (whichever starts the next later).
    #[arg(long, value_name = "SECONDS", value_delimiter = ',', value_parser = faultline::size::parse_seconds)]
    pub think_time: Vec<Duration>,
    /// Compare write cases that make their data durable differently (--sync, --open-sync) with
    /// each other too. Without it a comparison pairs cases that sync alike: write(sync=end) with
    /// mmap-write(sync=end), never with an unsynced write.
    #[arg(long)]
    pub pair_across_sync: bool,
    /// Mixed read/write (fio's rwmixread): this percent of the operations read, the others
    /// write to the same file (read+write, pread+pwrite, or loads and stores through one
    /// MAP_SHARED mapping), 0 to 100, each value a case; for read, pread and mmap.
    #[arg(long, value_name = "PERCENT", value_delimiter = ',', value_parser = clap::value_parser!(u8).range(0..=100))]
    pub read_share: Vec<u8>,
    /// Many files (fio's nrfiles): read N generated files in each trial, each opened (mapped),
    /// read whole and closed (unmapped) inside the main loop, 1 to 100000; for read, pread,
    /// mmap and mmap-copy.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=faultline::plan::file_set::MAX_FILES as i64))]
    pub files: Option<u32>,
    /// With --files: each file's size, or a range its sizes are drawn from (4k, 4k..64k)
    /// [default: 4k].
    #[arg(long, value_name = "SIZE[..SIZE]", value_parser = faultline::plan::file_set::parse_file_size)]
    pub file_size: Option<(u64, u64)>,
    /// Run each trial in a memory cgroup that limits its page cache to SIZE (needs root).
    #[arg(long, value_name = "SIZE", value_parser = clap_size)]
    pub memory_budget: Option<u64>,
    /// Run each trial in an I/O cgroup that throttles reads (and direct writes) of the disk
    /// holding its file to RATE, e.g. 16MB/s (cgroup v2 io.max, else v1 blkio; needs root):
    /// a fast disk made slow.
    #[arg(long, value_name = "RATE", value_parser = faultline::plan::device_rate::parse_device_rate)]
    pub device_rate: Option<u64>,
    /// Trial processes run at once on the same file, released together, 1 to 64
    /// (each reports its peak RSS and PSS).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(faultline::runner::procs::MAX_PROCS)))]
    pub procs: Option<u32>,
    /// Seed of random orders, shuffles and generated content.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Measured runs per case [default: 10; 5 for the default comparison].
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=faultline::plan::MAX_RUNS as i64))]
    pub runs: Option<u32>,
    /// Discarded runs per case before measuring, 0 to 10000.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(0..=faultline::plan::MAX_WARMUP as i64))]
    pub warmup: u32,
    /// Trial order within each group.
    #[arg(long, value_enum, default_value_t = OrderPolicy::Alternating)]
    pub order: OrderPolicy,
    /// Which time is compared: setup+loop+teardown (total) or the main loop only.
    #[arg(long, value_enum, default_value_t = Metric::Total)]
    pub metric: Metric,
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
    /// The factors the flags sweep.
    pub fn factors(&self) -> Factors {
        let on = |switches: &[Switch]| switches.iter().map(|s| s.on()).collect();
        Factors {
            methods: self.method.clone(),
            patterns: self.pattern.clone(),
            blocks: self.block.clone(),
            user_file: self.file.is_some(),
            workloads: self.workload.clone(),
            fills: self.fill.clone(),
            syncs: self.sync.clone(),
            sync_calls: self.sync_call.clone(),
            open_syncs: self.open_sync.clone(),
            msyncs: self.msync.clone(),
            targets: self.target.clone(),
            size_withs: self.size_with.clone(),
            caches: self.cache.clone(),
            warm_bys: self.warm_by.clone(),
            populates: self.populate.clone(),
            advices: self.advice.clone(),
            shares: self.share.clone(),
            stdio_buffers: self.stdio_buffer.clone(),
            iovs: self.iov.clone(),
            depths: self.depth.clone(),
            registered: on(&self.uring_registered),
            latency: on(&self.latency),
            scale_factors: self.factor.clone(),
            enlarge: self.enlarge,
            scale_unit: self.scale_unit,
            image_given: self.image.is_some(),
            keep_output: self.keep_output.is_some(),
            sizes_given: !self.size.is_empty(),
            threads: self.threads.clone(),
            thread_modes: self.thread_mode.clone(),
            procs: self.procs,
            seed: self.seed,
            runs: self.runs,
            warmup: self.warmup,
            order: self.order,
            metric: self.metric,
            trace: None,
            fadvises: self.fadvise.clone(),
            duration_s: self.duration,
            memory_budget: None,
            rates: self.rate.clone(),
            think_ns: self
                .think_time
                .iter()
                .map(|d| d.as_nanos() as u64)
                .collect(),
            pair_across_sync: self.pair_across_sync,
            read_shares: self.read_share.clone(),
            file_set: self.files.map(|count| {
                let (min_size, max_size) = self.file_size.unwrap_or((
                    faultline::plan::file_set::DEFAULT_FILE_SIZE,
                    faultline::plan::file_set::DEFAULT_FILE_SIZE,
                ));
                faultline::plan::FileSet {
                    count,
                    min_size,
                    max_size,
                }
            }),
            file_size_given: self.file_size.is_some(),
        }
    }

    /// The trace of `--trace`, parsed (its errors name the file and line).
    /// `sizes` are the files it will be replayed on: with one, an strace
    /// `lseek(.., SEEK_END)` whose result was not recorded takes its size.
    fn load_trace(&self, sizes: &[u64]) -> faultline::error::Result<Option<LoadedTrace>> {
        let Some(path) = &self.trace else {
            return Ok(None);
        };
        let follow = match (&self.trace_fd, &self.trace_path) {
            (Some(fd), _) => Follow::Fd(*fd),
            (None, Some(p)) => Follow::Path(p.clone()),
            (None, None) => Follow::Busiest,
        };
        let options = TraceOptions {
            format: self.trace_format,
            follow,
            file_size: (sizes.len() == 1).then(|| sizes[0]),
        };
        let (reference, trace) = TraceRef::open(path, &options)?;
        Ok(Some(LoadedTrace { reference, trace }))
    }

    /// Where and how the session runs.
    pub fn session_config(&self) -> RunSpec {
        let scales = self.workload.contains(&WorkloadKind::Scale);
        let exports = self.exports.exports();
        RunSpec {
            data_dir: session::data_dir(self.data_dir.clone()),
            file: self.file.clone(),
            kind: Some(faultline::runner::journal::JournalKind::Run),
            inputs: [
                ("--baseline", &self.output.baseline),
                ("--plan", &self.plan.plan),
                ("--trace", &self.trace),
            ]
            .into_iter()
            .filter_map(|(flag, path)| path.clone().map(|p| (flag.to_string(), p)))
            .collect(),
            image: scales.then(|| self.image.unwrap_or(image::DEFAULT_IMAGE)),
            seed: self.seed,
            size_given: Some(!self.size.is_empty()),
            scratch_parent: self.dir.clone(),
            keep: self.keep,
            keep_output: self.keep_output.clone(),
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
                    .statistics(self.resume.is_none() && self.runs.is_none()),
            ),
            resume_adjustment: self.resume.as_ref().and(self.statistics.fdr),
            journal_label: self.plan.run_name.clone(),
            ..RunSpec::default()
        }
    }

    /// File sizes to generate (none when --file is given).
    fn sizes(&self) -> Vec<u64> {
        if self.file.is_some() {
            Vec::new()
        } else if self.size.is_empty() {
            vec![DEFAULT_SIZE]
        } else {
            let mut seen = std::collections::HashSet::new();
            self.size
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
    pub baseline: Option<faultline::stats::RunResults>,
    /// The trace it replays, described.
    trace: Option<String>,
}

/// The export `--baseline` names, read, and refused when its numbers do
/// not compare with this run's.
fn baseline(args: &RunArgs) -> anyhow::Result<Option<faultline::stats::RunResults>> {
    let Some(path) = &args.output.baseline else {
        return Ok(None);
    };
    let old = super::compare::read_export(path).context("--baseline")?;
    if args.resume.is_none() && old.settings.metric != args.metric {
        return Err(faultline::error::Error::Plan(format!(
            "--baseline {}: it compared the {} time and this run compares the {} time (--metric); \
             their numbers do not compare",
            path.display(),
            format!("{:?}", old.settings.metric).to_lowercase(),
            format!("{:?}", args.metric).to_lowercase()
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
    let mut factors = args.factors();
    factors.trace = args.load_trace(&sizes)?;
    if let Some(limit) = args.memory_budget {
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
    let device_rate = match args.device_rate {
        Some(_) if args.procs.is_some_and(|n| n > 1) => {
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
        let read_from = args.file.as_deref().unwrap_or(&config.data_dir);
        for place in std::iter::once(read_from).chain(args.dir.as_deref()) {
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
    baseline: Option<&faultline::stats::RunResults>,
) -> anyhow::Result<ExitCode> {
    super::plan_args::warn_without_verdicts(session.plan());
    let finished = session.run()?;
    let code = super::print_finished(&finished, &args.output.output);
    if let Some(old) = baseline {
        super::compare::print_baseline(old, &finished.results, &args.output.output);
    }
    Ok(code)
}

/// `--trace-format`: fio, fio-v2, fio-v3, strace or csv.
fn parse_trace_format(s: &str) -> Result<TraceFormat, String> {
    s.parse()
        .map_err(|e: faultline::pattern::trace::TraceError| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::{Cli, Command};
    use super::*;
    use clap::Parser;
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
        let factors = run_args(&args).unwrap().factors();
        assert_eq!(factors.methods, [MethodKind::Read, MethodKind::Mmap]);
        assert_eq!(factors.blocks, [4096, 65536]);
        assert_eq!(factors.populates, [Populate::None, Populate::Map]);
        assert_eq!(factors.caches, [CacheState::Warm]);
        assert_eq!(factors.latency, [true]);
        let defaults = run_args(&[]).unwrap().factors();
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
                if let Ok(plan) = args.factors().plan(&[size]) {
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
                let _ = args.factors().plan(&[size.max(1)]);
            }
        }
    }
}
