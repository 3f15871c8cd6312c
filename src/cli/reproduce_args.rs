//! The flags of `faultline reproduce` ([`ReproduceArgs`]), with its
//! `--precision P|off` choice.
use std::path::PathBuf;

use clap::Args;

/// Flags of `faultline reproduce`.
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// The study: dillon2004, liege2018, fedorova2019, write2020, sun2002,
    /// or all of those; or crotty2022 (not in all: it needs root or a --size
    /// larger than memory, and takes a few minutes).
    #[arg(value_name = "PRESET")]
    pub preset: String,
    /// Smaller sizes and fewer runs (the default; `all` takes a few minutes).
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,
    /// The original sizes and run counts (can take hours).
    #[arg(long)]
    pub full: bool,
    /// Replay the original's quirks where a preset can (each preset's fidelity
    /// notes say which), instead of faultline's like-for-like comparison.
    #[arg(long)]
    pub faithful: bool,
    /// Write an HTML report with every preset's tables, verdicts and plots.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Write every preset's plots into this directory, as SVG and PNG (`<plot>.svg`, `<plot>.png`).
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
    /// The exports (with `all`: one file per preset, `<stem>-<preset>.<ext>`;
    /// the CSV's claims go to `<stem>-claims.csv` beside it, and crotty2022's CSV also writes
    /// its per-second timeline to `<stem>-timeline.csv`).
    #[command(flatten)]
    pub exports: super::ExportArgs,
    /// Interference: the threshold, retries, exclusion.
    #[command(flatten)]
    pub interference: super::interference_args::InterferenceArgs,
    /// Continue an interrupted reproduction from its journal (one preset at a time).
    #[arg(long, value_name = "JOURNAL")]
    pub resume: Option<PathBuf>,
    /// Cold cache by dropping all caches (root) instead of evicting the file.
    #[arg(long)]
    pub drop_caches: bool,
    /// faultline's data directory.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Print what each preset would run (cases, trials, test files, disk
    /// space) and exit without running anything.
    #[arg(long, conflicts_with = "resume")]
    pub dry_run: bool,
    /// Threads per trial, for presets that take it (crotty2022; default: the CPUs available).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(faultline::plan::threads::MAX_THREADS)))]
    pub threads: Option<u32>,
    /// The file size, for presets that take it (crotty2022: without a memory
    /// cgroup it must exceed MemAvailable).
    #[arg(long, value_parser = faultline::size::clap_size)]
    pub size: Option<u64>,
    /// Seconds per trial, for presets that take it (crotty2022; default: 10 quick, 60 full).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub duration: Option<u32>,
    /// Also add alternating rounds to each group until every comparison's 95% CI is within ±P
    /// (e.g. 3%), as `run --precision` does; `off` (the default) leaves the rounds to the claims:
    /// after the planned runs, pairs are added to each unsettled claim's comparisons until it is
    /// decided at its own tolerance or --max-time is spent.
    #[arg(long, value_name = "P|off", value_parser = parse_precision_or_off)]
    pub precision: Option<PrecisionChoice>,
    /// Most time for one preset's trials, the planned runs included, before no more pairs are
    /// added to settle its claims (e.g. 90s, 5m) [default: 90s with --quick, the presets of
    /// `reproduce all --quick` sharing 180s; 10m with --full].
    #[arg(long, value_name = "TIME", value_parser = super::precision_args::parse_duration_s)]
    pub max_time: Option<f64>,
    /// Most paired runs of any case while settling claims [default: 400 with --quick, 5 times the
    /// study's runs with --full].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=i64::from(faultline::plan::MAX_RUNS)))]
    pub max_runs: Option<u32>,
    /// Repeat the pass of every warm read trial until the trial lasts at least this long, so no
    /// main loop is timed below it (e.g. 20ms, `off`) [default: 20ms].
    #[arg(long, value_name = "TIME|off", value_parser = super::precision_args::parse_min_trial_or_off)]
    pub min_trial_time: Option<super::precision_args::MinTrial>,
    /// Do not profile the presets whose claims need a profile (fedorova2019) unless --profile
    /// is given: their profile claims are then listed as "unsettled: needs --profile".
    #[arg(long, conflicts_with = "profile")]
    pub no_profile: bool,
    /// Keep the journal of a reproduction that completes (it is removed then; an interrupted
    /// one's is always kept, for --resume).
    #[arg(long)]
    pub keep_journal: bool,
    /// Output flags.
    #[command(flatten)]
    pub output: super::output_args::OutputArgs,
    /// The profile.
    #[command(flatten)]
    pub profile: super::ProfileArgs,
    /// Divides every file size (test-only).
    #[arg(long, hide = true, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub scale_down: u64,
}

/// `--precision`: a target, or `off`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PrecisionChoice {
    /// Add rounds until every CI is within ± this fraction.
    Target(f64),
    /// The planned runs only.
    Off,
}

/// `3%`, `0.03` or `off`.
fn parse_precision_or_off(s: &str) -> Result<PrecisionChoice, String> {
    if s.trim().eq_ignore_ascii_case("off") {
        return Ok(PrecisionChoice::Off);
    }
    super::precision_args::parse_precision(s).map(PrecisionChoice::Target)
}
