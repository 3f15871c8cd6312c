//! `faultline calibrate`: an A/A test of this machine. One method runs as
//! two identical cases, A and B, for many alternating pairs; the pairs are
//! cut into comparisons of `--runs` pairs and families of `--comparisons`,
//! the size of a default run, and every verdict other than "within noise"
//! is a false one. It prints the noise floor and the false-verdict rates
//! per comparison and per family, each with its interval against the 5%
//! target. `--claims` judges A/A claims on the same pairs as `reproduce`
//! judges a study's claims; `--from` analyses an earlier calibrate's JSON
//! export instead of measuring.
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use faultline::analysis::calibrate_until_shown::{
    UntilShown, FIRST_LOOK_FAMILIES, MOST_FAMILIES, TARGET_FALSE_RATE,
};
use faultline::error::Error;
use faultline::method::MethodKind;
use faultline::pattern::Pattern;
use faultline::plan::factors::{Factors, DEFAULT_SIZE};
use faultline::plan::precision::Statistics;
use faultline::plan::CacheState;
use faultline::results::RunResults;
use faultline::session::{self, RunSpec, Session};
use faultline::size::clap_size;
use faultline::stats::fdr::Adjustment;
use faultline::studies::calibrate_claims::{aa_claims, rates, Cut, RunPairs};

/// The default `--max-runs` of `--claims`: 100 pairs a settled A/A claim.
/// `reproduce --quick` allows 400, bounded there by its time budget; an A/A
/// run has no budget, and its false-verdict rate is read at the looks up to
/// 100 (5, 8, 16, 32, 64, 100).
pub const CLAIMS_MAX_RUNS: u32 = 100;

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
    /// Families (runs) to simulate, 1 to 1000 [default: 10, then doubling up to 160 until the
    /// per-comparison and per-family rates are both shown within or above the 5% target].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub families: Option<u32>,
    /// How verdicts are adjusted within a family, as `run --fdr` (the rates of all three are
    /// printed).
    #[arg(long, value_enum, default_value_t = super::precision_args::DEFAULT_ADJUSTMENT)]
    pub fdr: Adjustment,
    /// The smallest difference a verdict calls, as `run --min-effect` (e.g. 2%; 0 calls any
    /// difference the CI shows) [default: 5%, as a run's].
    #[arg(long, value_name = "P", value_parser = super::precision_args::parse_min_effect)]
    pub min_effect: Option<f64>,
    /// Also judge A/A claims on the same pairs ("B is 1.2x faster than A", "2-6x faster",
    /// "similar within 1.5x"), as `reproduce` judges a study's claims: in fixed comparisons of
    /// --runs pairs, and settled as `reproduce` settles them.
    #[arg(long)]
    pub claims: bool,
    /// With --claims: the most pairs a settled A/A claim gets (as `reproduce --max-runs`;
    /// at least --runs).
    #[arg(long, value_name = "N", requires = "claims", default_value_t = CLAIMS_MAX_RUNS,
          value_parser = clap::value_parser!(u32).range(2..=i64::from(faultline::plan::MAX_RUNS)))]
    pub max_runs: u32,
    /// Analyse the JSON export of an earlier `faultline calibrate` (`--export-json`) instead of
    /// measuring: its pairs cut by --runs and --comparisons into as many families as they make.
    #[arg(long, value_name = "RESULTS.json", conflicts_with_all = [
        "method", "pattern", "block", "size", "cache", "families", "min_trial_time",
        "journal", "export_json", "export_csv", "export_markdown", "dry_run",
    ])]
    pub from: Option<PathBuf>,
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

impl CalibrateArgs {
    /// `--min-effect`, else a run's default.
    fn min_effect(&self) -> f64 {
        self.min_effect
            .unwrap_or(super::precision_args::DEFAULT_MIN_EFFECT)
    }

    /// The rule that adds families until the rates are shown, when no
    /// `--families` fixes their number.
    fn until_shown(&self) -> Option<UntilShown> {
        self.families.is_none().then(|| UntilShown {
            pairs: self.runs as usize,
            per_family: self.comparisons as usize,
            min_effect: self.min_effect(),
            adjustment: self.fdr,
            first_look: FIRST_LOOK_FAMILIES,
            most_families: MOST_FAMILIES,
        })
    }
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

/// Runs the A/A test (or reads an earlier one) and prints what it found.
pub fn execute(args: &CalibrateArgs) -> anyhow::Result<ExitCode> {
    if args.claims && args.max_runs < args.runs {
        return Err(Error::Plan(format!(
            "--max-runs {} is below --runs {}: a settled A/A claim starts from --runs pairs",
            args.max_runs, args.runs
        ))
        .into());
    }
    let (results, journal, measured) = match &args.from {
        Some(path) => (read_calibration(path)?, None, false),
        None => match measure(args)? {
            Ok(m) => (m.results, m.journal, true),
            Err(code) => return Ok(code),
        },
    };
    let calibration = faultline::analysis::calibrate::from_results(
        &results,
        args.runs as usize,
        args.comparisons as usize,
        args.min_effect(),
    )
    .ok_or_else(|| {
        for line in faultline::report::failure_lines(&results) {
            eprintln!("failed: {line}");
        }
        let why = faultline::report::terminal::failed::failure_summary(&results)
            .unwrap_or_else(|| "the A/A run gave no comparison of 2 or more pairs".into());
        Error::Trial(why)
    })?;
    let group = results
        .cases
        .first()
        .map(|c| c.case.group_label())
        .unwrap_or_default();
    let method = results
        .cases
        .first()
        .map(|c| c.case.method.to_string())
        .unwrap_or_default();
    println!("calibrate: {method} vs itself, {group}");
    if measured {
        // Kept for `reproduce --dry-run`'s power plan (docs/claims.md); an
        // earlier run read with --from is not this machine's latest noise.
        let noise = faultline::files::noise::Noise {
            pair_sd: calibration.pair_sd,
            when: results
                .environment
                .captured_at
                .clone()
                .unwrap_or_else(|| "at an unknown time".into()),
            what: format!("{method}, {group}"),
        };
        let data_dir = session::data_dir(args.data_dir.clone());
        if let Err(e) = faultline::files::noise::write(&data_dir, &noise) {
            eprintln!("warning: could not record the noise for reproduce's power plan: {e}");
        }
    }
    let scale = faultline::report::calibration::Scale {
        families: calibration.families,
        pairs_per_family: (args.runs * args.comparisons) as usize,
    };
    for line in faultline::report::calibration::calibration_lines(&calibration, args.fdr, scale) {
        println!("{line}");
    }
    if args.claims {
        let pairs = RunPairs::of(&results)
            .ok_or_else(|| Error::Trial("the A/A run gave no paired runs".into()))?;
        print_claims(args, &pairs, scale);
    }
    if let Some((text, header, rows)) =
        faultline::report::sections::precision::short_trial_table(&results)
    {
        faultline::console::warning_table(&text, &header, &rows);
    }
    for line in faultline::report::failure_lines(&results) {
        eprintln!("failed: {line}");
    }
    if let Some(journal) = journal {
        eprintln!("journal: {}", journal.display());
    }
    // A run in which trials failed exits non-zero, saying how many and why.
    if let Some(line) = faultline::report::terminal::failed::failure_summary(&results) {
        eprintln!("error: {line}");
        return Ok(ExitCode::from(super::EXIT_FAILURE));
    }
    Ok(ExitCode::SUCCESS)
}

/// The A/A claims judged on `pairs`, fixed and settled; again with
/// interference not checked when any pair had an interfered trial.
fn print_claims(
    args: &CalibrateArgs,
    pairs: &RunPairs,
    scale: faultline::report::calibration::Scale,
) {
    let share = pairs.interfered_share();
    println!(
        "A/A claims, judged as reproduce judges a study's claim (90% CIs against the claim's band, \
         clean pairs only where a trial was interfered with) on the same pairs; the true ratio is 1; \
         {:.0}% of the pairs had an interfered trial",
        share * 100.0
    );
    let claims = aa_claims();
    let cuts = [
        (
            format!("fixed comparisons of {} pairs, each judged once", args.runs),
            Cut::Fixed(args.runs as usize),
        ),
        (
            format!(
                "settled as reproduce settles a claim (a pilot of {} pairs, then one more pair \
                 at a time while the settling rule asks, up to {})",
                args.runs, args.max_runs
            ),
            Cut::Settled {
                pilot: args.runs as usize,
                max: args.max_runs as usize,
            },
        ),
    ];
    let ignoring = (share > 0.0).then(|| pairs.ignoring_interference());
    let passes = [(pairs, "")].into_iter().chain(ignoring.as_ref().map(|p| {
        (
            p,
            ", interference NOT checked (every pair taken as clean: not what reproduce does; \
                 this shows what setting interfered pairs aside does)",
        )
    }));
    for (pairs, note) in passes {
        for (words, cut) in &cuts {
            let found = rates(pairs, *cut, &claims);
            let heading = format!("{words}{note}");
            for line in faultline::report::calibration::claim_lines(&heading, &found, scale) {
                println!("{line}");
            }
        }
    }
}

/// The export of an earlier `faultline calibrate`: refused unless it holds
/// exactly the two copies of one case that calibrate runs.
fn read_calibration(path: &std::path::Path) -> anyhow::Result<RunResults> {
    let mut files = faultline::files::outputs::Files::new(&[]);
    files.input("--from", path)?;
    let results = super::compare::read_export(path)?;
    let copies = match results.cases.as_slice() {
        [a, b] => {
            let strip = |c: &faultline::plan::Case| faultline::plan::Case {
                replica: None,
                ..c.clone()
            };
            a.case.replica.is_some()
                && b.case.replica.is_some()
                && a.case.replica != b.case.replica
                && strip(&a.case) == strip(&b.case)
        }
        _ => false,
    };
    if !copies || results.comparisons.is_empty() {
        return Err(Error::BadFile {
            path: path.to_path_buf(),
            why: format!(
                "is not a faultline calibrate export: it holds {} case(s), not the two copies \
                 (A and B) of one case that calibrate runs",
                results.cases.len()
            ),
        }
        .into());
    }
    Ok(results)
}

/// The families at which `rule` looks, e.g. `10, 20, 40, 80 and 160 families`.
fn looks(rule: &UntilShown) -> String {
    let at: Vec<String> = (1..=rule.most_families)
        .filter(|&f| rule.is_look(f))
        .map(|f| f.to_string())
        .collect();
    match at.split_last() {
        Some((last, [])) => format!("{last} families"),
        Some((last, rest)) => format!("{} and {last} families", rest.join(", ")),
        None => String::new(),
    }
}

/// A finished A/A session: its results, and its journal when it was kept.
struct Measured {
    results: RunResults,
    journal: Option<PathBuf>,
}

/// Runs the A/A session: its results and journal, or the exit code of a
/// dry run or of an interrupted one (what it finished is printed and
/// journalled, nothing is analysed).
fn measure(args: &CalibrateArgs) -> anyhow::Result<Result<Measured, ExitCode>> {
    let families = args.families.unwrap_or(FIRST_LOOK_FAMILIES as u32);
    let pairs = args.runs * args.comparisons * families;
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
    let exports = args.exports.exports();
    let config = RunSpec {
        data_dir: session::data_dir(args.data_dir.clone()),
        kind: Some(faultline::runner::journal::JournalKind::Calibrate),
        seed: 1,
        size_given: Some(args.size.is_some()),
        journal: args.journal.clone(),
        export_json: exports.json,
        export_csv: exports.csv,
        export_markdown: exports.markdown,
        statistics: Some(Statistics {
            adjustment: args.fdr,
            min_trial_ns: args.min_trial_time.map(|s| (s * 1e9) as u64),
            min_effect: Some(args.min_effect()),
            ..Statistics::default()
        }),
        ..RunSpec::default()
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
        let code = super::plan_args::print_dry_run("calibrate", &plan, &config)?;
        if let Some(rule) = args.until_shown() {
            let scale = rule.most_families as f64 / families as f64;
            let first_s = faultline::session::dry_run::estimated_run_seconds(&plan, &config);
            println!(
                "  then: a family at a time until both false-verdict rates are shown within or \
                 above the {:.0}% target, looking at {}: up to {} pairs in all, about {} at most",
                TARGET_FALSE_RATE * 100.0,
                looks(&rule),
                pairs as f64 * scale,
                faultline::session::dry_run::format_duration(first_s * scale)
            );
        }
        return Ok(Err(code));
    }
    let until = match args.until_shown() {
        Some(rule) => format!(
            ", then a family at a time up to {} until both false-verdict rates are shown \
             within or above the {:.0}% target (looks at {})",
            rule.most_families,
            TARGET_FALSE_RATE * 100.0,
            looks(&rule)
        ),
        None => String::new(),
    };
    eprintln!(
        "calibrate: {} as A and B, {} alternating pairs ({} families of {} comparisons of {} \
         pairs){until}",
        args.method, pairs, families, args.comparisons, args.runs
    );
    let mut session = Session::fresh(plan, &config)?;
    if let Some(rule) = args.until_shown() {
        session = session.settled_by(session::Settle(std::sync::Arc::new(rule)));
    }
    let finished = session.run()?;
    if finished.interrupted {
        return Ok(Err(super::print_finished(&finished, &args.output)));
    }
    // A completed run's journal is gone: say where it is only when kept.
    let journal = (!finished.journal_removed).then_some(finished.journal);
    Ok(Ok(Measured {
        results: finished.results,
        journal,
    }))
}
