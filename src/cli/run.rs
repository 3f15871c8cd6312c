//! `faultline run`: its flags, their translation into the library's
//! [`Factors`] and [`SessionConfig`], and the run itself.
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

use faultline::files::image;
use faultline::method::{
    Advice, MethodKind, Populate, Share, SizeWith, Switch, SyncCall, SyncPolicy,
};
use faultline::pattern::Pattern;
use faultline::plan::factors::{Factors, DEFAULT_SIZE};
use faultline::plan::{CacheState, Metric, OrderPolicy, Target, ThreadMode, WarmBy};
use faultline::session::{self, Session, SessionConfig};
use faultline::size::clap_size;
use faultline::workload::{FillContent, ScaleFactor, ScaleUnit, WorkloadKind};

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
    /// The exports.
    #[command(flatten)]
    pub exports: super::ExportArgs,
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
        }
    }

    /// Where and how the session runs.
    pub fn session_config(&self) -> SessionConfig {
        let scales = self.workload.contains(&WorkloadKind::Scale);
        SessionConfig {
            data_dir: session::data_dir(self.data_dir.clone()),
            file: self.file.clone(),
            image: scales.then(|| self.image.unwrap_or(image::DEFAULT_IMAGE)),
            seed: self.seed,
            scratch_parent: self.dir.clone(),
            keep: self.keep,
            keep_output: self.keep_output.clone(),
            drop_caches: self.drop_caches,
            trial_timeout: self.trial_timeout,
            journal: self.journal.clone(),
            exports: self.exports.exports(),
            reproduction: None,
            profile: None,
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

/// Runs `faultline run`: a fresh plan from the flags, or the rest of one from
/// its journal.
pub fn execute(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let mut config = args.session_config();
    let session = match &args.resume {
        Some(journal) => Session::resume(journal, &config)?,
        None => {
            let sizes = session::planned_file_sizes(&config, &args.sizes())?;
            let plan = args.factors().plan(&sizes)?;
            config.profile = args.profile.decide()?;
            Session::fresh(plan, &config)?
        }
    };
    let finished = session.run()?;
    Ok(super::print_finished(&finished))
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
            if let Ok(Cli { command: Command::Run(args) }) = Cli::try_parse_from(argv) {
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
