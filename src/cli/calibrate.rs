//! `faultline calibrate`: an A/A test of this machine. One method runs as
//! two identical cases, A and B, for many alternating pairs; the pairs are
//! cut into comparisons of `--runs` pairs and families of `--comparisons`,
//! the size of a default run, and every verdict other than "within noise"
//! is a false one. It prints the noise floor and the false-verdict rates.
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use faultline::error::Error;
use faultline::method::MethodKind;
use faultline::pattern::Pattern;
use faultline::plan::factors::{Factors, DEFAULT_SIZE};
use faultline::plan::precision::{Adjustment, Statistics};
use faultline::plan::CacheState;
use faultline::session::{self, Session, SessionConfig};
use faultline::size::clap_size;

/// Flags of `faultline calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// The method run as both A and B (a read method).
    #[arg(long, default_value = "read", value_parser = read_method())]
    pub method: MethodKind,
    /// Block order.
    #[arg(long, default_value = "seq")]
    pub pattern: Pattern,
    /// Block size [default: 16 KiB for seq, 4 KiB for random].
    #[arg(long, value_parser = clap_size)]
    pub block: Option<u64>,
    /// Size of the generated test file [default: 256 MiB, as `run`].
    #[arg(long, value_parser = clap_size)]
    pub size: Option<u64>,
    /// Page-cache state before each trial.
    #[arg(long, value_enum, default_value_t = CacheState::Warm)]
    pub cache: CacheState,
    /// Pairs per comparison, 2 to 1000 (a default run has 5).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub runs: u32,
    /// Comparisons per family, adjusted together, 1 to 100 (a default run has 4).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub comparisons: u32,
    /// Families (runs) to simulate, 1 to 1000.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub families: u32,
    /// How verdicts are adjusted within a family (the rates of all three are printed).
    #[arg(long, value_enum, default_value_t = Adjustment::BenjaminiHochberg)]
    pub fdr: Adjustment,
    /// Repeat the pass inside each trial until it lasts at least this long (e.g. 20ms), as
    /// `run --min-trial-time` does (warm and as-is caches only).
    #[arg(long, value_name = "TIME", value_parser = super::precision_args::parse_min_trial)]
    pub min_trial_time: Option<f64>,
    /// faultline's data directory [default: $XDG_CACHE_HOME/faultline].
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Where to write the journal [default: beside the JSON export, else <data-dir>/runs/].
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,
    /// The exports (every A/A trial).
    #[command(flatten)]
    pub exports: super::ExportArgs,
    /// Print the cases, trials, bytes, disk space and an estimated time, and exit, touching
    /// nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Output flags.
    #[command(flatten)]
    pub output: super::output_args::OutputArgs,
}

/// `--method`'s parser: the read methods only, so that `--help` and the
/// completions offer none that calibrate refuses.
fn read_method() -> impl clap::builder::TypedValueParser<Value = MethodKind> {
    use clap::builder::TypedValueParser;
    use clap::ValueEnum;
    clap::builder::PossibleValuesParser::new(
        MethodKind::value_variants()
            .iter()
            .filter(|m| !m.writes())
            .filter_map(ValueEnum::to_possible_value),
    )
    .map(|s| MethodKind::from_str(&s, false).expect("a possible value names a method"))
}

/// Runs the A/A test and prints what it found.
pub fn execute(args: &CalibrateArgs) -> anyhow::Result<ExitCode> {
    let pairs = args.runs * args.comparisons * args.families;
    let factors = Factors {
        methods: vec![args.method],
        patterns: vec![args.pattern],
        blocks: args.block.into_iter().collect(),
        caches: vec![args.cache],
        sizes_given: args.size.is_some(),
        runs: Some(pairs),
        ..Factors::default()
    };
    if args.method.writes() {
        return Err(Error::Plan(format!(
            "calibrate measures read methods; {} writes",
            args.method
        ))
        .into());
    }
    let config = SessionConfig {
        data_dir: session::data_dir(args.data_dir.clone()),
        seed: 1,
        journal: args.journal.clone(),
        exports: args.exports.exports(),
        statistics: Statistics {
            adjustment: args.fdr,
            min_trial_ns: args.min_trial_time.map(|s| (s * 1e9) as u64),
            ..Statistics::default()
        },
        ..SessionConfig::default()
    };
    let size = args.size.unwrap_or(DEFAULT_SIZE);
    let sizes = session::planned_file_sizes(&config, &[size])?;
    let mut plan = factors.plan(&sizes)?;
    let [case] = plan.cases.as_slice() else {
        return Err(Error::Plan(format!(
            "calibrate runs one case as A and B, and these flags make {}",
            plan.cases.len()
        ))
        .into());
    };
    let min_trial_ns = args.min_trial_time.map(|s| (s * 1e9) as u64);
    if min_trial_ns.is_some() && case.cache == CacheState::Cold {
        return Err(Error::Plan(
            "--min-trial-time repeats warm passes; a cold A/A test runs one pass a trial".into(),
        )
        .into());
    }
    let (mut a, mut b) = (case.clone(), case.clone());
    a.min_trial_ns = min_trial_ns;
    b.min_trial_ns = min_trial_ns;
    a.replica = Some(0);
    b.replica = Some(1);
    plan.cases = vec![a, b];
    if args.dry_run {
        return super::plan_args::print_dry_run("calibrate", &plan, &config);
    }
    eprintln!(
        "calibrate: {} as A and B, {} alternating pairs ({} families of {} comparisons of {} pairs)",
        args.method,
        pairs,
        args.families,
        args.comparisons,
        args.runs
    );
    let finished = Session::fresh(plan, &config)?.run()?;
    let results = &finished.results;
    if finished.interrupted {
        return Ok(super::print_finished(&finished, &args.output));
    }
    let calibration = faultline::stats::calibrate::from_results(
        results,
        args.runs as usize,
        args.comparisons as usize,
    )
    .ok_or_else(|| Error::Trial("the A/A run gave no comparison of 2 or more pairs".into()))?;
    let group = results
        .cases
        .first()
        .map(|c| c.case.group_label())
        .unwrap_or_default();
    println!("calibrate: {} vs itself, {group}", args.method);
    // Kept for `reproduce --dry-run`'s power plan (docs/claims.md).
    let noise = faultline::files::noise::Noise {
        pair_sd: calibration.pair_sd,
        when: results
            .environment
            .captured_at
            .clone()
            .unwrap_or_else(|| "at an unknown time".into()),
        what: format!("{}, {group}", args.method),
    };
    if let Err(e) = faultline::files::noise::write(&config.data_dir, &noise) {
        eprintln!("warning: could not record the noise for reproduce's power plan: {e}");
    }
    for line in faultline::report::calibration::calibration_lines(&calibration, args.fdr) {
        println!("{line}");
    }
    if let Some((text, header, rows)) = faultline::report::precision::short_trial_table(results) {
        faultline::console::warning_table(&text, &header, &rows);
    }
    for line in faultline::report::failure_lines(results) {
        eprintln!("failed: {line}");
    }
    // A completed run's journal is gone: say where it is only when kept.
    if !finished.journal_removed {
        eprintln!("journal: {}", finished.journal.display());
    }
    Ok(ExitCode::SUCCESS)
}
