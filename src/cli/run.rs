//! Command-line interface: flags and their translation into a [`Plan`].
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use faultline::error::Error;
use faultline::method::{
    Advice, MethodKind, Populate, Share, SizeWith, Switch, SyncCall, SyncPolicy,
};
use faultline::pattern::Pattern;
use faultline::plan::Target;
use faultline::plan::{CacheState, WarmBy};
use faultline::plan::{Case, Metric, OrderPolicy, Plan};
use faultline::plan::{ThreadMode, Threads};
use faultline::size::clap_size;
use faultline::workload::{FillContent, ScaleFactor, ScaleUnit, WorkloadKind};

/// Largest block a trial may use.
pub const MAX_BLOCK: u64 = 64 << 20;

/// Is mmap() faster than read()? Measured on your machine and your files,
/// one process per trial, with the page cache controlled and verified.
#[derive(Debug, Parser)]
#[command(name = "faultline", version, about, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compare I/O methods (default: read vs mmap, seq 16 KiB and random 4 KiB, warm and cold).
    Run(Box<RunArgs>),
    /// Print the environment every number depends on.
    Env {
        /// Describe the file system and device of this file (default: the data directory).
        #[arg(long)]
        file: Option<PathBuf>,
        /// faultline's data directory.
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Remove the test files faultline generated (only those).
    Clean {
        /// faultline's data directory.
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Write one self-contained HTML report (verdicts, plots, tables) from a run's JSON export.
    Report(ReportArgs),
    /// Replay a published study (or `all`) and check its claims on this machine.
    Reproduce(crate::cli::reproduce::ReproduceArgs),
    /// Runs one trial (internal: the runner re-executes itself with this).
    #[command(name = "__trial", hide = true)]
    Trial,
}

/// Flags of `faultline report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The JSON export of a run (`faultline run --export-json FILE`).
    #[arg(value_name = "RESULTS.json")]
    pub results: PathBuf,
    /// Where to write the HTML report.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Also write each plot as SVG and PNG into this directory.
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
}

/// Flags of `faultline run`. Each factor takes a comma-separated list; the
/// run is the Cartesian product of the lists.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// I/O methods; the first is the baseline the others are compared with.
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [MethodKind::Read, MethodKind::Mmap])]
    pub method: Vec<MethodKind>,
    /// Block orders. Without --pattern and --block: seq with 16 KiB blocks and random with 4 KiB blocks.
    #[arg(long, value_delimiter = ',', value_enum)]
    pub pattern: Vec<Pattern>,
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
    /// The call write methods sync with (mmap-write always uses msync(MS_SYNC)).
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [SyncCall::Fsync])]
    pub sync_call: Vec<SyncCall>,
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
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub iov: Vec<u32>,
    /// io_uring: requests in flight (uring, uring-direct, uring-write, uring-direct-write),
    /// 1 to 256 [default: 1].
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=256))]
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
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Vec<u32>,
    /// How threads share the work: split the blocks between them, or each run the whole workload.
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [ThreadMode::Split], requires = "threads")]
    pub thread_mode: Vec<ThreadMode>,
    /// Trial processes run at once on the same file, released together, 1 to 64
    /// (each reports its peak RSS and PSS).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub procs: Option<u32>,
    /// Seed of random orders, shuffles and generated content.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Measured runs per case [default: 10; 5 for the default comparison].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub runs: Option<u32>,
    /// Discarded runs per case before measuring.
    #[arg(long, default_value_t = 0)]
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
    /// Kill a trial that runs longer than this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub trial_timeout: Option<f64>,
    /// faultline's data directory [default: $XDG_CACHE_HOME/faultline].
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Continue an interrupted run from its journal: only the missing trials run,
    /// and the exports come out as from an uninterrupted run. The plan comes from the journal.
    #[arg(long, value_name = "JOURNAL", conflicts_with_all = [
        "method", "pattern", "block", "size", "file", "workload", "cache", "warm_by", "populate",
        "advice", "share", "stdio_buffer", "iov", "depth", "uring_registered", "latency", "seed", "runs", "warmup", "order", "metric", "drop_caches", "journal",
        "factor", "enlarge", "scale_unit", "image", "threads", "thread_mode", "procs",
    ])]
    pub resume: Option<PathBuf>,
    /// Where to write the journal [default: beside the JSON export, else <data-dir>/runs/].
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,
    /// Write every sample and summary as JSON (rewritten after every group).
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Write one CSV row per sample (rewritten after every group).
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Write a Markdown report (rewritten after every group).
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
}

/// Default file size for generated files.
pub const DEFAULT_SIZE: u64 = 256 << 20;

impl RunArgs {
    /// Whether no factor was given, so the default comparison runs.
    fn is_default_comparison(&self) -> bool {
        self.pattern.is_empty() && self.block.is_empty()
    }

    /// Measured runs per case.
    pub fn runs(&self) -> u32 {
        self.runs
            .unwrap_or(if self.is_default_comparison() { 5 } else { 10 })
    }

    /// (pattern, block) pairs: the product of the lists, or the defaults.
    fn pattern_blocks(&self) -> Vec<(Pattern, u64)> {
        let default_block = |p: Pattern| if p == Pattern::Seq { 16 << 10 } else { 4 << 10 };
        match (self.pattern.is_empty(), self.block.is_empty()) {
            (true, true) => vec![(Pattern::Seq, 16 << 10), (Pattern::Random, 4 << 10)],
            (false, true) => self
                .pattern
                .iter()
                .map(|&p| (p, default_block(p)))
                .collect(),
            (true, false) => self.block.iter().map(|&b| (Pattern::Seq, b)).collect(),
            (false, false) => self
                .pattern
                .iter()
                .flat_map(|&p| self.block.iter().map(move |&b| (p, b)))
                .collect(),
        }
    }

    /// File sizes to generate (none when --file is given).
    pub fn sizes(&self) -> Vec<u64> {
        if self.file.is_some() {
            Vec::new()
        } else if self.size.is_empty() {
            vec![DEFAULT_SIZE]
        } else {
            dedup(self.size.clone())
        }
    }

    /// The workloads: as given, or sum for read methods and fill for write methods.
    fn workloads(&self) -> Vec<WorkloadKind> {
        if !self.workload.is_empty() {
            return self.workload.clone();
        }
        let mut out = Vec::new();
        if self.method.iter().any(|m| !m.writes()) {
            out.push(WorkloadKind::Sum);
        }
        if self.method.iter().any(|m| m.writes()) {
            out.push(WorkloadKind::Fill);
        }
        out
    }

    /// Refuses method, workload, pattern and file combinations that cannot run.
    fn check_combinations(&self) -> Result<(), Error> {
        let names = |ms: Vec<String>| ms.join(", ");
        let writers: Vec<String> = self
            .method
            .iter()
            .filter(|m| m.writes())
            .map(|m| m.to_string())
            .collect();
        let readers: Vec<String> = self
            .method
            .iter()
            .filter(|m| !m.writes())
            .map(|m| m.to_string())
            .collect();
        if self.file.is_some() && !writers.is_empty() {
            return Err(Error::Plan(format!(
                "write methods only write files faultline creates; --file is for read methods \
                 (drop --file to run {}, and use --dir to choose where it writes)",
                names(writers)
            )));
        }
        let workloads = self.workloads();
        let (write_loads, read_loads): (Vec<WorkloadKind>, Vec<WorkloadKind>) =
            workloads.iter().partition(|w| w.writes());
        if !writers.is_empty() && write_loads.is_empty() {
            return Err(Error::Plan(format!(
                "write methods ({}) need --workload fill ({} only reads; --fill zero,pattern chooses what is written)",
                names(writers),
                names(read_loads.iter().map(|w| w.to_string()).collect())
            )));
        }
        if !readers.is_empty() && read_loads.is_empty() {
            return Err(Error::Plan(format!(
                "--workload fill is for write methods; read methods ({}) need a read workload such as sum",
                names(readers)
            )));
        }
        if writers.is_empty() && !write_loads.is_empty() {
            return Err(Error::Plan(
                "--workload fill needs a write method (--method write, pwrite, mmap-write, direct-write or uring-write)"
                    .into(),
            ));
        }
        if readers.is_empty() && !read_loads.is_empty() {
            return Err(Error::Plan(format!(
                "--workload {} needs a read method; write methods take --workload fill",
                names(read_loads.iter().map(|w| w.to_string()).collect())
            )));
        }
        if !writers.is_empty() && self.pattern.contains(&Pattern::RandomReplace) {
            return Err(Error::Plan(
                "--pattern random-replace writes some blocks twice and others never, so the written \
                 file could not be checked; write methods take seq or random (every block once)"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Expands the flags into a plan over files of the given sizes.
    pub fn plan(&self, file_sizes: &[u64]) -> Result<Plan, Error> {
        self.check_combinations()?;
        let workloads = self.workloads();
        let mut cases = Vec::new();
        self.check_scale(file_sizes)?;
        for &file_size in file_sizes {
            let pairs = if self.scales() {
                // The image is one block, read in one go.
                vec![(Pattern::Seq, file_size)]
            } else {
                self.pattern_blocks()
            };
            for (pattern, block_size) in pairs {
                if block_size == 0 {
                    return Err(Error::Plan("--block must be at least 1 byte".into()));
                }
                if block_size > MAX_BLOCK {
                    return Err(Error::Plan(format!(
                        "--block {} is larger than the 64 MiB maximum",
                        faultline::size::format_size(block_size)
                    )));
                }
                if block_size > file_size {
                    return Err(Error::Plan(format!(
                        "--block {} is larger than the file ({} bytes)",
                        faultline::size::format_size(block_size),
                        file_size
                    )));
                }
                for &workload in &workloads {
                    let writes = workload.writes();
                    let fills: Vec<Option<FillContent>> = if writes {
                        self.fill.iter().copied().map(Some).collect()
                    } else {
                        vec![None]
                    };
                    let targets: Vec<Option<Target>> = if writes {
                        self.target.iter().copied().map(Some).collect()
                    } else {
                        vec![None]
                    };
                    for &fill in &fills {
                        for &target in &targets {
                            for &cache in &self.cache {
                                for &warm_by in &self.warm_by {
                                    // A fresh file has nothing to cache.
                                    let (cache, warm_by) = if target == Some(Target::Fresh) {
                                        (CacheState::AsIs, WarmBy::default())
                                    } else {
                                        (cache, warm_by)
                                    };
                                    for &method in &self.method {
                                        if method.writes() != writes {
                                            continue;
                                        }
                                        for mmap in self.mmap_variants(method) {
                                            for write in self.write_variants(method, target) {
                                                cases.push(Case {
                                                    method,
                                                    pattern,
                                                    block_size,
                                                    file_size,
                                                    workload,
                                                    cache,
                                                    warm_by,
                                                    populate: mmap.map(|m| m.0),
                                                    advice: mmap.map(|m| m.1),
                                                    share: mmap.map(|m| m.2),
                                                    sync: write.map(|w| w.0),
                                                    sync_call: write.and_then(|w| w.1),
                                                    target,
                                                    size_with: write.and_then(|w| w.2),
                                                    fill,
                                                    seed: self.seed,
                                                    io: Default::default(),
                                                    latency: false,
                                                    scale: None,
                                                    scale_unit: None,
                                                    threads: None,
                                                    procs: None,
                                                    duration_s: None,
                                                    memory_budget: None,
                                                });
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        let factors = faultline::plan::factors::IoFactors {
            stdio_buffers: self.stdio_buffer.clone(),
            iovs: self.iov.clone(),
            depths: self.depth.clone(),
            registered: self.uring_registered.iter().map(|s| s.on()).collect(),
            latency: self.latency.iter().map(|s| s.on()).collect(),
        };
        let cases = faultline::plan::factors::expand(cases, &factors)?;
        if let Some(c) = cases.iter().find(|c| {
            c.fill == Some(FillContent::Calloc)
                && !matches!(c.method, MethodKind::Write | MethodKind::Pwrite)
        }) {
            return Err(Error::Plan(format!(
                "--fill calloc is for --method write and pwrite (their buffer is calloc'd and never stored into); {} stores every byte it writes",
                c.method
            )));
        }
        let mut cases = self.expand_scale_and_threads(cases)?;
        let mut seen = std::collections::HashSet::new();
        cases.retain(|c| seen.insert(c.clone()));
        Ok(Plan {
            cases,
            runs: self.runs(),
            warmup: self.warmup,
            order: self.order,
            metric: self.metric,
            seed: self.seed,
        })
    }

    fn mmap_variants(&self, method: MethodKind) -> Vec<Option<(Populate, Advice, Share)>> {
        if !method.maps_file() {
            return vec![None];
        }
        let mut out = Vec::new();
        for &p in &self.populate {
            for &a in &self.advice {
                for &s in &self.share {
                    out.push(Some((p, a, s)));
                }
            }
        }
        out
    }
}

impl RunArgs {
    /// Whether the run scales images (`--workload scale`).
    pub fn scales(&self) -> bool {
        self.workload.contains(&WorkloadKind::Scale)
    }

    /// The size of the generated image.
    pub fn image_size(&self) -> (u32, u32) {
        self.image.unwrap_or(faultline::files::image::DEFAULT_IMAGE)
    }

    /// The scale factors: as given (all enlarging with --enlarge), or 2.
    fn factors(&self) -> Vec<ScaleFactor> {
        if self.factor.is_empty() {
            let k = 2;
            return vec![if self.enlarge {
                ScaleFactor::Enlarge(k)
            } else {
                ScaleFactor::Reduce(k)
            }];
        }
        self.factor
            .iter()
            .map(|&f| match f {
                ScaleFactor::Reduce(k) if self.enlarge => ScaleFactor::Enlarge(k),
                f => f,
            })
            .collect()
    }

    /// Refuses the flags that do not go with `scale`, and the scale flags without it.
    fn check_scale(&self, file_sizes: &[u64]) -> Result<(), Error> {
        if !self.scales() {
            let stray = [
                ("--factor", !self.factor.is_empty()),
                ("--enlarge", self.enlarge),
                ("--image", self.image.is_some()),
                ("--keep-output", self.keep_output.is_some()),
                ("--scale-unit", self.scale_unit != ScaleUnit::Pixel),
            ];
            if let Some((flag, _)) = stray.iter().find(|(_, given)| *given) {
                return Err(Error::Plan(format!("{flag} is for --workload scale")));
            }
            return Ok(());
        }
        if self.workload.len() > 1 {
            return Err(Error::Plan(
                "--workload scale runs alone: its file is an image read as one block".into(),
            ));
        }
        if !self.size.is_empty() {
            return Err(Error::Plan(
                "--workload scale reads a PPM image: give --image WxH (generated) or --file, not --size"
                    .into(),
            ));
        }
        for &file_size in file_sizes {
            if let Some(&b) = self.block.iter().find(|&&b| b != file_size) {
                return Err(Error::Plan(format!(
                    "--workload scale reads the whole image as one block ({file_size} bytes); \
                     --block {} cannot be used with it (leave --block out)",
                    faultline::size::format_size(b)
                )));
            }
        }
        if self.pattern.iter().any(|&p| p != Pattern::Seq) {
            return Err(Error::Plan(
                "--workload scale reads the whole image as one block, so it has no block order; leave --pattern out".into(),
            ));
        }
        Ok(())
    }

    /// Multiplies the cases by the scale factors (scale cases) and by the
    /// threads and thread modes; refuses a case that cannot run on threads.
    fn expand_scale_and_threads(&self, cases: Vec<Case>) -> Result<Vec<Case>, Error> {
        let mut out = Vec::new();
        let factors = self.factors();
        let threads: Vec<Option<Threads>> = if self.threads.is_empty() {
            vec![None]
        } else {
            let mut v = Vec::new();
            for &count in &self.threads {
                if count <= 1 {
                    v.push(None);
                    continue;
                }
                for &mode in &self.thread_mode {
                    v.push(Some(Threads { count, mode }));
                }
            }
            v
        };
        for case in cases {
            let scales: Vec<Option<ScaleFactor>> = if case.workload == WorkloadKind::Scale {
                factors.iter().copied().map(Some).collect()
            } else {
                vec![None]
            };
            for &scale in &scales {
                for &threads in &threads {
                    let case = Case {
                        scale,
                        scale_unit: (scale.is_some() && self.scale_unit != ScaleUnit::Pixel)
                            .then_some(self.scale_unit),
                        threads,
                        procs: self.procs.filter(|&n| n > 1),
                        ..case.clone()
                    };
                    if case.procs.is_some() && case.method.writes() {
                        return Err(Error::Plan(format!(
                            "--procs is for read methods; {} writes (one writer per file)",
                            case.method
                        )));
                    }
                    if let Some(why) = faultline::plan::threads::refusal(&case) {
                        return Err(Error::Plan(why));
                    }
                    out.push(case);
                }
            }
        }
        Ok(out)
    }
}

/// One combination of the write options: sync policy, sync call (write and
/// pwrite with a sync), and sizing (mmap-write on a fresh file).
type WriteVariant = (SyncPolicy, Option<SyncCall>, Option<SizeWith>);

impl RunArgs {
    fn write_variants(
        &self,
        method: MethodKind,
        target: Option<Target>,
    ) -> Vec<Option<WriteVariant>> {
        if !method.writes() {
            return vec![None];
        }
        let mut out = Vec::new();
        for &sync in &self.sync {
            let calls: Vec<Option<SyncCall>> =
                if method.sync_call_applies() && sync != SyncPolicy::None {
                    self.sync_call.iter().copied().map(Some).collect()
                } else {
                    vec![None]
                };
            let sizes: Vec<Option<SizeWith>> =
                if method == MethodKind::MmapWrite && target == Some(Target::Fresh) {
                    self.size_with.iter().copied().map(Some).collect()
                } else {
                    vec![None]
                };
            for &call in &calls {
                for &size in &sizes {
                    out.push(Some((sync, call, size)));
                }
            }
        }
        out
    }
}

fn dedup(mut v: Vec<u64>) -> Vec<u64> {
    let mut seen = std::collections::HashSet::new();
    v.retain(|x| seen.insert(*x));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn default_comparison_is_seq_16k_and_random_4k_warm_and_cold_5_runs() {
        let plan = run_args(&[]).unwrap().plan(&[DEFAULT_SIZE]).unwrap();
        assert_eq!(plan.runs, 5);
        assert_eq!(plan.cases.len(), 2 * 2 * 2);
        assert!(plan
            .cases
            .iter()
            .all(|c| (c.pattern == Pattern::Seq) == (c.block_size == 16 << 10)));
        assert_eq!(plan.groups().len(), 4);
    }

    #[test]
    fn factor_lists_multiply_and_mmap_options_only_multiply_mapping_methods() {
        let args: Vec<String> = "--method read,mmap --pattern seq,random --block 4k,64k --populate none,map --advice normal,random --cache warm"
            .split(' ')
            .map(String::from)
            .collect();
        let plan = run_args(&args).unwrap().plan(&[1 << 20]).unwrap();
        // 2 patterns x 2 blocks x (read + 2x2 mmap variants)
        assert_eq!(plan.cases.len(), 2 * 2 * 5);
        assert_eq!(plan.runs, 10);
        assert!(plan
            .cases
            .iter()
            .filter(|c| c.method == MethodKind::Read)
            .all(|c| c.populate.is_none()));
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
                let _ = args.plan(&[size.max(1)]);
            }
        }
    }

    fn args(flags: &[&str]) -> RunArgs {
        let mut argv = vec!["faultline", "run"];
        argv.extend_from_slice(flags);
        match Cli::try_parse_from(argv).expect("valid flags").command {
            Command::Run(args) => *args,
            _ => unreachable!(),
        }
    }

    #[test]
    fn read_and_write_methods_get_their_own_workloads_and_options() {
        let plan = args(&[
            "--method",
            "read,write,mmap-write",
            "--pattern",
            "seq",
            "--block",
            "4k",
            "--cache",
            "warm,cold",
            "--sync",
            "none,end",
            "--size-with",
            "truncate,fallocate",
        ])
        .plan(&[1 << 20])
        .unwrap();
        let labels: Vec<String> = plan
            .cases
            .iter()
            .map(|c| format!("{} {}", c.method_label(), c.group_label()))
            .collect();
        assert_eq!(
            labels,
            vec![
                "read seq 4 KiB sum, warm",
                "read seq 4 KiB sum, cold",
                "write seq 4 KiB fill pattern, fresh file",
                "write(sync=end) seq 4 KiB fill pattern, fresh file",
                "mmap-write seq 4 KiB fill pattern, fresh file",
                "mmap-write(size-with=fallocate) seq 4 KiB fill pattern, fresh file",
                "mmap-write(sync=end) seq 4 KiB fill pattern, fresh file",
                "mmap-write(sync=end,size-with=fallocate) seq 4 KiB fill pattern, fresh file",
            ],
            "a fresh file has no cache state: warm and cold collapse into as-is"
        );
        let read = &plan.cases[0];
        assert_eq!((read.sync, read.target, read.fill), (None, None, None));
        let write = &plan.cases[3];
        assert_eq!(write.sync_call, Some(SyncCall::Fsync));
        assert_eq!(write.size_with, None);
        assert_eq!(plan.cases[6].sync_call, None, "mmap-write always msyncs");
        assert_eq!(plan.groups().len(), 3);
    }

    #[test]
    fn overwrite_targets_keep_the_cache_states_and_need_no_sizing() {
        let plan = args(&[
            "--method",
            "pwrite,mmap-write",
            "--block",
            "4k",
            "--target",
            "overwrite",
            "--cache",
            "warm,cold",
            "--size-with",
            "truncate,fallocate",
            "--fill",
            "zero,pattern",
        ])
        .plan(&[1 << 20])
        .unwrap();
        // 2 fills x 2 cache states x 2 methods, with no sizing variants.
        assert_eq!(plan.cases.len(), 8);
        assert!(plan.cases.iter().all(|c| c.size_with.is_none()));
        assert_eq!(
            plan.cases[0].group_label(),
            "seq 4 KiB fill zero, overwrite, warm"
        );
    }

    #[test]
    fn incompatible_combinations_are_refused() {
        let refused = |flags: &[&str], needle: &str| {
            let err = args(flags).plan(&[1 << 20]).unwrap_err().to_string();
            assert!(err.contains(needle), "{flags:?}: {err}");
        };
        refused(
            &["--method", "write", "--workload", "sum"],
            "need --workload fill",
        );
        refused(
            &["--method", "read,write", "--workload", "fill"],
            "read methods (read) need a read workload",
        );
        refused(
            &["--method", "read", "--workload", "sum,fill"],
            "--workload fill needs a write method",
        );
        refused(
            &["--method", "write", "--workload", "fill,md5"],
            "--workload md5 needs a read method",
        );
        refused(
            &["--method", "pwrite", "--pattern", "random-replace"],
            "seq or random",
        );
        refused(
            &["--method", "mmap-write", "--file", "/etc/hostname"],
            "--file is for read methods",
        );
    }
}
