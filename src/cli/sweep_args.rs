//! `faultline run`'s factor flags: each factor's list (methods, patterns,
//! blocks, the write, mmap and io_uring options, cache states, threads,
//! paced load, ...) and what the factors are measured on (generated sizes,
//! a file, an image, a trace), and their translation into the library's
//! [`Factors`], in one place. `RunArgs` flattens them first, so `run
//! --help` lists them as they were declared.
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use faultline::method::{
    Advice, Fadvise, MethodKind, Msync, OpenSync, Populate, Share, SizeWith, Switch, SyncCall,
    SyncPolicy,
};
use faultline::pattern::trace::TraceFormat;
use faultline::pattern::Pattern;
use faultline::plan::factors::Factors;
use faultline::plan::{CacheState, Metric, OrderPolicy, Target, ThreadMode, WarmBy};
use faultline::size::clap_size;
use faultline::workload::{FillContent, ScaleFactor, ScaleUnit, WorkloadKind};

/// The factor flags of `faultline run`. Each factor takes a
/// comma-separated list; the run is the Cartesian product of the lists.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// I/O methods; the first is the baseline the others are compared with.
    #[arg(long, help_heading = "Methods", value_delimiter = ',', value_enum, default_values_t = [MethodKind::Read, MethodKind::Mmap])]
    pub method: Vec<MethodKind>,
    /// Block orders: seq, random, random-replace, reverse, stride:N, zipf:THETA, pareto:H,
    /// normal:SIGMA, hotset:P/Q (P% of accesses to Q% of the blocks, spread), hotzone:P/Q (to
    /// the first Q% of the file), chase (each next block from the bytes of the last). Without
    /// --pattern and --block: seq with 16 KiB blocks and random with 4 KiB blocks.
    #[arg(long, help_heading = "Workload", value_delimiter = ',')]
    pub pattern: Vec<Pattern>,
    /// Replay the reads (or, for write methods, the writes) recorded in FILE instead of a
    /// generated pattern: a fio iolog (v2, v3), strace output, or offset,length CSV.
    #[arg(long, help_heading = "Workload", value_name = "FILE", conflicts_with_all = ["pattern", "block"])]
    pub trace: Option<PathBuf>,
    /// The trace's format [default: told from its first line].
    #[arg(long, help_heading = "Workload", value_name = "FORMAT", value_parser = parse_trace_format, requires = "trace")]
    pub trace_format: Option<TraceFormat>,
    /// strace traces: replay the reads of this file descriptor [default: the file read most].
    #[arg(
        help_heading = "Workload",
        long,
        value_name = "FD",
        requires = "trace",
        conflicts_with = "trace_path"
    )]
    pub trace_fd: Option<i32>,
    /// Replay the operations on the traced file with this path (or ending with it)
    /// [default: the file read most].
    #[arg(
        long,
        help_heading = "Workload",
        value_name = "PATH",
        requires = "trace"
    )]
    pub trace_path: Option<String>,
    /// Block sizes, 1 byte to 64 MiB (e.g. 4k,16KiB,1M). Default: 16 KiB for seq, 4 KiB for random.
    #[arg(long, help_heading = "Workload", value_delimiter = ',', value_parser = clap_size, allow_negative_numbers = true)]
    pub block: Vec<u64>,
    /// Sizes of generated test files.
    #[arg(long, help_heading = "Workload", value_delimiter = ',', value_parser = clap_size, conflicts_with = "file", allow_negative_numbers = true)]
    pub size: Vec<u64>,
    /// Measure this file instead of a generated one (it is only ever read; not with write methods).
    #[arg(long, help_heading = "Workload")]
    pub file: Option<PathBuf>,
    /// What is done with each block [default: sum for read methods, fill for write methods].
    #[arg(long, help_heading = "Workload", value_delimiter = ',', value_enum)]
    pub workload: Vec<WorkloadKind>,
    /// What write methods write: zeros, or a position-dependent pattern.
    #[arg(long, help_heading = "Write options", value_delimiter = ',', value_enum, default_values_t = [FillContent::Pattern])]
    pub fill: Vec<FillContent>,
    /// When write methods sync: never, once after the loop, or after every block.
    #[arg(long, help_heading = "Write options", value_delimiter = ',', value_enum, default_values_t = [SyncPolicy::None])]
    pub sync: Vec<SyncPolicy>,
    /// The call write methods sync with: fsync, fdatasync, or sync_file_range of the block (each)
    /// or the file (end); mmap-write syncs with msync (see --msync).
    #[arg(long, help_heading = "Write options", value_delimiter = ',', value_enum, default_values_t = [SyncCall::Fsync])]
    pub sync_call: Vec<SyncCall>,
    /// Open the written file with O_DSYNC or O_SYNC, so every write is durable when it returns
    /// (write, pwrite, stdio-write, direct-write, uring-write, uring-direct-write).
    #[arg(long, help_heading = "Write options", value_delimiter = ',', value_enum, default_values_t = [OpenSync::None])]
    pub open_sync: Vec<OpenSync>,
    /// How mmap-write's msync waits (with --sync end or each): MS_SYNC, or MS_ASYNC.
    #[arg(long, help_heading = "Write options", value_delimiter = ',', value_enum, default_values_t = [Msync::Sync])]
    pub msync: Vec<Msync>,
    /// What write methods write into: a new file, or an existing preallocated one written over.
    #[arg(long, help_heading = "Write options", value_delimiter = ',', value_enum, default_values_t = [Target::Fresh])]
    pub target: Vec<Target>,
    /// How mmap-write sizes a fresh file before mapping it: ftruncate (sparse) or fallocate.
    #[arg(long, help_heading = "Write options", value_delimiter = ',', value_enum, default_values_t = [SizeWith::Truncate])]
    pub size_with: Vec<SizeWith>,
    /// Where write methods write: faultline creates a private directory of its own inside PATH
    /// [default: scratch/ in the data directory].
    #[arg(long, help_heading = "Write options", value_name = "PATH")]
    pub dir: Option<PathBuf>,
    /// Keep the files write methods wrote (the last one of each case) instead of removing them.
    #[arg(long, help_heading = "Write options")]
    pub keep: bool,
    /// Page-cache state before each trial.
    #[arg(long, help_heading = "Workload", value_delimiter = ',', value_enum, default_values_t = [CacheState::Warm, CacheState::Cold])]
    pub cache: Vec<CacheState>,
    /// How a warm cache is reached.
    #[arg(long, help_heading = "Workload", value_delimiter = ',', value_enum, default_values_t = [WarmBy::Seq])]
    pub warm_by: Vec<WarmBy>,
    /// mmap pre-faulting: none, MAP_POPULATE (map) or MADV_POPULATE_READ (madvise).
    #[arg(long, help_heading = "mmap options", value_delimiter = ',', value_enum, default_values_t = [Populate::None])]
    pub populate: Vec<Populate>,
    /// madvise() hint for the mapping.
    #[arg(long, help_heading = "mmap options", value_delimiter = ',', value_enum, default_values_t = [Advice::Normal])]
    pub advice: Vec<Advice>,
    /// MAP_SHARED or MAP_PRIVATE.
    #[arg(long, help_heading = "mmap options", value_delimiter = ',', value_enum, default_values_t = [Share::Shared])]
    pub share: Vec<Share>,
    /// stdio's buffer (std's BufReader capacity), 1 byte to 64 MiB [default: 8 KiB].
    #[arg(long, help_heading = "Methods", value_delimiter = ',', value_parser = clap_size)]
    pub stdio_buffer: Vec<u64>,
    /// preadv: consecutive blocks per call, each into its own buffer, 1 to 1024 [default: 4].
    #[arg(long, help_heading = "Methods", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=i64::from(faultline::method::MAX_IOV)))]
    pub iov: Vec<u32>,
    /// io_uring: requests in flight (uring, uring-direct, uring-write, uring-direct-write),
    /// 1 to 256 [default: 1]. A chase runs at depth 1 (each read needs the bytes of the last).
    #[arg(long, help_heading = "io_uring", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=i64::from(faultline::method::MAX_DEPTH)))]
    pub depth: Vec<u32>,
    /// io_uring: read into or write from registered (fixed) buffers. Alone it means on; `off,on`
    /// measures both.
    #[arg(long, help_heading = "io_uring", value_delimiter = ',', value_enum, num_args = 0..=1, default_missing_value = "on")]
    pub uring_registered: Vec<Switch>,
    /// Record every operation's latency (p50, p90, p99, p99.9, max). Alone it means on;
    /// `off,on` runs both, side by side, which shows what recording costs.
    #[arg(long, help_heading = "Statistics", value_delimiter = ',', value_enum, num_args = 0..=1, default_missing_value = "on")]
    pub latency: Vec<Switch>,
    /// `scale` workload: factors, each a case; k reduces by k, -k enlarges by k (e.g. 2,3,4,8).
    #[arg(
        long,
        help_heading = "Workload",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    pub factor: Vec<ScaleFactor>,
    /// `scale` workload: every --factor enlarges (2 means -2).
    #[arg(long, help_heading = "Workload")]
    pub enlarge: bool,
    /// `scale` workload: what one pixel is: a whole 3-byte pixel, or one byte as the
    /// 2002 article's listing indexed the image.
    #[arg(long, help_heading = "Workload", value_enum, default_value_t = ScaleUnit::Pixel)]
    pub scale_unit: ScaleUnit,
    /// `scale` workload: size of the generated PPM image, WIDTHxHEIGHT [default: 1280x1024].
    #[arg(long, help_heading = "Workload", value_name = "WxH", value_parser = faultline::files::image::parse_image_size, conflicts_with = "file")]
    pub image: Option<(u32, u32)>,
    /// `scale` workload: write the scaled image of the last trial to FILE (a P6 PPM).
    #[arg(long, help_heading = "Workload", value_name = "FILE")]
    pub keep_output: Option<PathBuf>,
    /// Threads per trial, 1 to 1024 (each list entry is a case).
    #[arg(long, help_heading = "Threads and processes", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=i64::from(faultline::plan::threads::MAX_THREADS)))]
    pub threads: Vec<u32>,
    /// How threads share the work: split the blocks between them, or each run the whole workload.
    #[arg(long, help_heading = "Threads and processes", value_delimiter = ',', value_enum, default_values_t = [ThreadMode::Split], requires = "threads")]
    pub thread_mode: Vec<ThreadMode>,
    /// posix_fadvise() on the opened file in setup, for read, pread, preadv, stdio and uring
    /// (each value its own case; the mmap methods take --advice).
    #[arg(long, help_heading = "Methods", value_delimiter = ',', value_enum)]
    pub fadvise: Vec<Fadvise>,
    /// Read for this many seconds per trial instead of one pass (touch workload), reporting
    /// reads per second and a per-second timeline, 1 to 86400.
    #[arg(long, help_heading = "Workload", value_name = "SECONDS", value_parser = clap::value_parser!(u32).range(1..=i64::from(faultline::plan::duration::MAX_DURATION_S)))]
    pub duration: Option<u32>,
    /// Paced load: issue the operations (blocks) at this rate, ops per second (2000) or bytes per
    /// second (64M/s), each value a case; every paced case records its latencies. Not with
    /// --threads, --procs or --duration.
    #[arg(long, help_heading = "Workload", value_name = "RATE", value_delimiter = ',', value_parser = faultline::plan::pace::parse_rate)]
    pub rate: Vec<faultline::plan::pace::Rate>,
    /// Paced load: wait this many seconds after each operation (0.001 to a year; e.g. 0.005),
    /// each value a case; combines with --rate (whichever starts the next later).
    #[arg(long, help_heading = "Workload", value_name = "SECONDS", value_delimiter = ',', value_parser = faultline::size::parse_seconds)]
    pub think_time: Vec<Duration>,
    /// Compare write cases that make their data durable differently (--sync, --open-sync) with
    /// each other too. Without it a comparison pairs cases that sync alike: write(sync=end) with
    /// mmap-write(sync=end), never with an unsynced write.
    #[arg(long, help_heading = "Write options")]
    pub pair_across_sync: bool,
    /// Mixed read/write (fio's rwmixread): this percent of the operations read, the others
    /// write to the same file (read+write, pread+pwrite, or loads and stores through one
    /// MAP_SHARED mapping), 0 to 100, each value a case; for read, pread and mmap.
    #[arg(long, help_heading = "Workload", value_name = "PERCENT", value_delimiter = ',', value_parser = clap::value_parser!(u8).range(0..=100))]
    pub read_share: Vec<u8>,
    /// Many files (fio's nrfiles): read N generated files in each trial, each opened (mapped),
    /// read whole and closed (unmapped) inside the main loop, 1 to 100000; for read, pread,
    /// mmap and mmap-copy.
    #[arg(long, help_heading = "Workload", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=faultline::plan::file_set::MAX_FILES as i64))]
    pub files: Option<u32>,
    /// With --files: each file's size, or a range its sizes are drawn from (4k, 4k..64k)
    /// [default: 4k].
    #[arg(long, help_heading = "Workload", value_name = "SIZE[..SIZE]", value_parser = faultline::plan::file_set::parse_file_size)]
    pub file_size: Option<(u64, u64)>,
    /// Run each trial in a memory cgroup that limits its page cache to SIZE (needs root).
    #[arg(long, help_heading = "Workload", value_name = "SIZE", value_parser = clap_size)]
    pub memory_budget: Option<u64>,
    /// Run each trial in an I/O cgroup that throttles reads (and direct writes) of the disk
    /// holding its file to RATE, e.g. 16MB/s (cgroup v2 io.max, else v1 blkio; needs root):
    /// a fast disk made slow.
    #[arg(long, help_heading = "Workload", value_name = "RATE", value_parser = faultline::plan::device_rate::parse_device_rate)]
    pub device_rate: Option<u64>,
    /// Trial processes run at once on the same file, released together, 1 to 64
    /// (each reports its peak RSS and PSS).
    #[arg(long, help_heading = "Threads and processes", value_parser = clap::value_parser!(u32).range(1..=i64::from(faultline::runner::procs::MAX_PROCS)))]
    pub procs: Option<u32>,
    /// Seed of random orders, shuffles and generated content.
    #[arg(long, help_heading = "Statistics", default_value_t = 1)]
    pub seed: u64,
    /// Measured runs per case [default: 10; 5 for the default comparison].
    #[arg(long, help_heading = "Statistics", allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=faultline::plan::MAX_RUNS as i64))]
    pub runs: Option<u32>,
    /// Discarded runs per case before measuring, 0 to 10000.
    #[arg(long, help_heading = "Statistics", default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(0..=faultline::plan::MAX_WARMUP as i64))]
    pub warmup: u32,
    /// Trial order within each group.
    #[arg(long, help_heading = "Statistics", value_enum, default_value_t = OrderPolicy::Alternating)]
    pub order: OrderPolicy,
    /// Which time is compared: setup+loop+teardown (total) or the main loop only.
    #[arg(long, help_heading = "Methods", value_enum, default_value_t = Metric::Total)]
    pub metric: Metric,
}

impl SweepArgs {
    /// The factors the flags sweep. (Not from here: the trace, loaded by
    /// `RunArgs::load_trace` once the file sizes are known, and the memory
    /// budget and device rate, found on this machine by the session.)
    pub fn factors(&self) -> Factors {
        let on = |switches: &[Switch]| switches.iter().map(|s| s.on()).collect();
        let file_set = self.files.map(|count| {
            let default = faultline::plan::file_set::DEFAULT_FILE_SIZE;
            let (min_size, max_size) = self.file_size.unwrap_or((default, default));
            faultline::plan::FileSet {
                count,
                min_size,
                max_size,
            }
        });
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
            file_set,
            file_size_given: self.file_size.is_some(),
        }
    }
}

/// `--trace-format`: fio, fio-v2, fio-v3, strace or csv.
fn parse_trace_format(s: &str) -> Result<TraceFormat, String> {
    s.parse()
        .map_err(|e: faultline::pattern::trace::TraceError| e.to_string())
}
