//! `faultline advise --file F (--pattern P | --trace T)`: runs the candidate
//! read paths on the user's file and access pattern in one session (the
//! engine of `run`), ranks them with verdicts, says why the winner wins,
//! then maps where the answer would change along the block size (the
//! engine of `map`). Everything printed comes from these measurements.
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use faultline::method::{Advice, MethodKind, Populate};
use faultline::pattern::trace::{Follow, LoadedTrace, TraceOptions, TraceRef};
use faultline::pattern::Pattern;
use faultline::plan::factors::Factors;
use faultline::plan::precision::{Precision, Statistics};
use faultline::plan::CacheState;
use faultline::session::map::{factors as map_factors, MapSpec};
use faultline::session::{self, RunSpec, Session, EXIT_INTERRUPTED};
use faultline::size::{clap_size, format_size};
use faultline::stats::crossover::Axis;
use faultline::stats::ranking::{self, AdviseResults};

/// The read paths `advise` tries; mmap also with MADV_POPULATE_READ and with
/// the madvise() hint that fits the pattern.
const CANDIDATES: [MethodKind; 6] = [
    MethodKind::Read,
    MethodKind::Pread,
    MethodKind::Preadv,
    MethodKind::Mmap,
    MethodKind::Direct,
    MethodKind::Uring,
];

/// Flags of `faultline advise`.
#[derive(Debug, Args)]
pub struct AdviseArgs {
    /// Your file (only ever read).
    #[arg(long, required = true)]
    pub file: PathBuf,
    /// Your access pattern: seq, random, zipf:THETA, hotset:P/Q, ... (as `run --pattern`).
    #[arg(long, required_unless_present = "trace", conflicts_with = "trace")]
    pub pattern: Option<Pattern>,
    /// Your access pattern as recorded: a fio iolog, strace output or offset,length CSV.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Block size of the pattern [default: 4 KiB, 16 KiB for seq].
    #[arg(long, value_parser = clap_size, conflicts_with = "trace")]
    pub block: Option<u64>,
    /// Page-cache state before each trial [default: warm].
    #[arg(long, value_enum, default_value_t = CacheState::Warm)]
    pub cache: CacheState,
    /// Most time for everything (e.g. 90s, 5m): half for the ranking, the rest for the map
    /// [default: 3m].
    #[arg(long, value_name = "TIME", value_parser = super::precision_args::parse_duration_s)]
    pub max_time: Option<f64>,
    /// Measured runs per candidate, the fewest, 2 to 1000 [default: 5].
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub runs: Option<u32>,
    /// The smallest difference that counts [default: 5%].
    #[arg(long, value_name = "P", value_parser = super::precision_args::parse_precision)]
    pub min_effect: Option<f64>,
    /// Repeat a warm trial's pass until its main loops add up to this long (e.g. 20ms).
    #[arg(long, value_name = "TIME", value_parser = super::precision_args::parse_duration_s)]
    pub min_trial_time: Option<f64>,
    /// faultline's data directory [default: $XDG_CACHE_HOME/faultline].
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Write the ranking, every sample, and the map as JSON.
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// The answer only: no progress.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs `faultline advise`.
pub fn execute(args: &AdviseArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let budget = args.max_time.unwrap_or(180.0);
    let margin = args.min_effect.unwrap_or(0.05);
    let runs = args.runs.unwrap_or(5);
    let statistics = |max_time_s: f64| Statistics {
        precision: Some(Precision {
            target: 0.03,
            max_runs: runs.max(20),
            max_time_s: Some(max_time_s),
        }),
        adjustment: Default::default(),
        min_trial_ns: args.min_trial_time.map(|s| (s * 1e9) as u64),
        min_effect: Some(margin),
    };
    let mut config = RunSpec {
        data_dir: session::data_dir(args.data_dir.clone()),
        file: Some(args.file.clone()),
        quiet: args.quiet,
        statistics: Some(statistics(budget / 2.0)),
        ..RunSpec::default()
    };
    {
        // No output on an input or on faultline's own files, before anything runs.
        let dir = &config.data_dir;
        let mut files = faultline::files::outputs::Files::new(&[
            dir.clone(),
            dir.join("runs"),
            dir.join(faultline::files::scratch::SUBDIR),
        ]);
        files.input("the data directory", dir)?;
        files.input("--file", &args.file)?;
        if let Some(t) = &args.trace {
            files.input("--trace", t)?;
        }
        if let Some(p) = &args.export_json {
            files.output("--export-json", p)?;
        }
    }
    let size = session::planned_file_sizes(&config, &[])?[0];
    let pattern = args.pattern.unwrap_or(Pattern::Trace);
    let block = args.block.unwrap_or(if pattern == Pattern::Seq {
        16 << 10
    } else {
        4 << 10
    });
    let trace = match &args.trace {
        Some(path) => {
            let options = TraceOptions {
                format: None,
                follow: Follow::Busiest,
                file_size: Some(size),
            };
            let (reference, trace) = TraceRef::open(path, &options)?;
            Some(LoadedTrace { reference, trace })
        }
        None => None,
    };
    let hint = if pattern == Pattern::Seq {
        Advice::Sequential
    } else {
        Advice::Random
    };
    let base = Factors {
        methods: vec![MethodKind::Read],
        patterns: args.pattern.into_iter().collect(),
        blocks: if trace.is_some() {
            Vec::new()
        } else {
            vec![block]
        },
        user_file: true,
        caches: vec![args.cache],
        runs: Some(runs),
        trace,
        populates: vec![Populate::None, Populate::Madvise],
        advices: vec![Advice::Normal, hint],
        ..Factors::default()
    };
    // Each candidate alone, checked as its run would be: what cannot run
    // here is said, not measured.
    let mut methods = Vec::new();
    let mut skipped = Vec::new();
    for m in CANDIDATES {
        let mut one = base.clone();
        one.methods = vec![m];
        let checked = one
            .plan(&[size])
            .and_then(|p| faultline::plan::preflight::check_plan(&p, &args.file));
        match checked {
            Ok(()) => methods.push(m),
            Err(e) if m == MethodKind::Read => return Err(e.into()),
            Err(e) => skipped.push(format!("{m}: {e}")),
        }
    }
    let mut factors = base.clone();
    factors.methods = methods;
    let plan = factors.plan(&[size])?;
    let workload = format!(
        "{} of {} ({}), {}",
        match &factors.trace {
            Some(t) => format!("the reads of {}", t.reference.describe()),
            None => format!("{pattern} {} reads", format_size(block)),
        },
        args.file.display(),
        format_size(size),
        args.cache
    );
    let finished = Session::fresh(plan, &config)?.run()?;
    if !finished.journal_removed {
        let _ = std::fs::remove_file(&finished.journal);
    }
    if finished.interrupted {
        eprintln!("interrupted: nothing advised");
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    let run = finished.results;
    let ranking = ranking::rank(&run);
    let head = ranking::head_to_head(&run, &ranking, margin);
    let why = match ranking.as_slice() {
        [first, second, ..] => {
            let (w, s) = (run.case(first.case), run.case(second.case));
            match (
                w.and_then(|c| c.summary.as_ref()),
                s.and_then(|c| c.summary.as_ref()),
            ) {
                (Some(ws), Some(ss)) => {
                    use faultline::report::verdict::{evidence, explain, Side as V};
                    let faster = V {
                        label: &first.label,
                        summary: ws,
                    };
                    let slower = V {
                        label: &second.label,
                        summary: ss,
                    };
                    let counters = evidence(ws, ss);
                    Some(match explain(faster, slower, run.settings.metric) {
                        Some(reason) => {
                            format!("{reason} ({} vs {}: {counters})", first.label, second.label)
                        }
                        None => format!("{} vs {}: {counters}", first.label, second.label),
                    })
                }
                _ => None,
            }
        }
        _ => None,
    };
    let mut not_mapped = vec![format!(
        "file size against the memory available: your file's size is fixed; map it on \
         generated files with `faultline map --method A,B --over size=LOW..HIGH \
         --memory-budget SIZE` (a memory cgroup: needs root)"
    )];
    let mut block_map = None;
    // The winner against the fastest candidate of another method.
    let winner = ranking.first().and_then(|r| run.case(r.case));
    let rival = ranking
        .iter()
        .filter_map(|r| run.case(r.case))
        .find(|c| winner.is_some_and(|w| w.case.method != c.case.method));
    let top: Vec<&faultline::stats::CaseResult> = winner.into_iter().chain(rival).collect();
    let left = budget - started.elapsed().as_secs_f64();
    let high = (1u64 << 20).min(size / 4);
    match top.as_slice() {
        _ if factors.trace.is_some() => {
            not_mapped.push("block size: a trace fixes its own offsets and lengths".to_string())
        }
        [_, _] if left < 10.0 => not_mapped.push(format!(
            "block size: {:.0} s of --max-time left, too little to map",
            left.max(0.0)
        )),
        [_, _] if high <= 4096 => not_mapped.push(format!(
            "block size: the file ({}) is too small to map blocks from 4 KiB",
            format_size(size)
        )),
        [w, r] => {
            let mut f = base.clone();
            f.methods = vec![r.case.method, w.case.method];
            let mapped = |c: &faultline::stats::CaseResult| c.case.method == MethodKind::Mmap;
            let m = if mapped(w) { w } else { r };
            f.populates = vec![m.case.populate.unwrap_or(Populate::None)];
            f.advices = vec![m.case.advice.unwrap_or(Advice::Normal)];
            config.statistics = Some(statistics(left));
            let factor = map_factors::find("block").expect("block is a map factor");
            let spec = MapSpec {
                factor,
                axis: Axis {
                    low: 4096.0,
                    high: high as f64,
                    scale: factor.scale,
                    resolution: factor.resolution,
                },
                factors: f,
                size,
                config: config.clone(),
                budget_s: left,
                margin,
                fixed: format!("{pattern}, your file, {}", args.cache),
                export_json: None,
                report: None,
                quiet: args.quiet,
            };
            spec.check()?;
            let outcome = spec.run()?;
            block_map = Some(outcome.results);
        }
        _ => not_mapped.push("block size: fewer than two candidates measured".into()),
    }
    let results = AdviseResults {
        faultline_advise: faultline::stats::ranking::ADVISE_FORMAT,
        workload,
        skipped,
        ranking,
        head_to_head: head,
        why,
        run,
        block_map,
        not_mapped,
    };
    if let Some(p) = &args.export_json {
        faultline::report::advise::write_json(&results, p)?;
    }
    print!("{}", faultline::report::advise::render_text(&results));
    let interrupted = results
        .block_map
        .as_ref()
        .is_some_and(|m| m.stopped == faultline::stats::map_results::Stopped::Interrupted);
    if interrupted {
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    Ok(ExitCode::SUCCESS)
}
