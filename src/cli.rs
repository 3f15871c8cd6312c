//! Command-line interface: flags and their translation into a [`Plan`].
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use faultline::cache::{CacheState, WarmBy};
use faultline::error::Error;
use faultline::method::{Advice, MethodKind, Populate, Share, Switch};
use faultline::pattern::Pattern;
use faultline::plan::{Case, Metric, OrderPolicy, Plan};
use faultline::size::clap_size;
use faultline::workload::WorkloadKind;

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
    /// Runs one trial (internal: the runner re-executes itself with this).
    #[command(name = "__trial", hide = true)]
    Trial,
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
    /// Measure this file instead of a generated one (it is only ever read).
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// What is done with each block.
    #[arg(long, value_delimiter = ',', value_enum, default_values_t = [WorkloadKind::Sum])]
    pub workload: Vec<WorkloadKind>,
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
    /// io_uring: reads in flight (uring, uring-direct), 1 to 256 [default: 1].
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=256))]
    pub depth: Vec<u32>,
    /// io_uring: read into registered (fixed) buffers. Alone it means on; `off,on` measures both.
    #[arg(long, value_delimiter = ',', value_enum, num_args = 0..=1, default_missing_value = "on")]
    pub uring_registered: Vec<Switch>,
    /// Record every operation's latency (p50, p90, p99, p99.9, max). Alone it means on;
    /// `off,on` runs both, side by side, which shows what recording costs.
    #[arg(long, value_delimiter = ',', value_enum, num_args = 0..=1, default_missing_value = "on")]
    pub latency: Vec<Switch>,
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

    /// Expands the flags into a plan over files of the given sizes.
    pub fn plan(&self, file_sizes: &[u64]) -> Result<Plan, Error> {
        let mut cases = Vec::new();
        for &file_size in file_sizes {
            for (pattern, block_size) in self.pattern_blocks() {
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
                for &workload in &self.workload {
                    for &cache in &self.cache {
                        for &warm_by in &self.warm_by {
                            for &method in &self.method {
                                for mmap in self.mmap_variants(method) {
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
                                        seed: self.seed,
                                        io: Default::default(),
                                        latency: false,
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        let factors = faultline::plan::variants::IoFactors {
            stdio_buffers: self.stdio_buffer.clone(),
            iovs: self.iov.clone(),
            depths: self.depth.clone(),
            registered: self.uring_registered.iter().map(|s| s.on()).collect(),
            latency: self.latency.iter().map(|s| s.on()).collect(),
        };
        let mut cases = faultline::plan::variants::expand(cases, &factors)?;
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
}
