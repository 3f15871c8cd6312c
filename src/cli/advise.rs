//! `faultline advise --file F (--pattern P | --trace T)`: runs the candidate
//! read paths on the user's file and access pattern in one session (the
//! engine of `run`), ranks them with verdicts, says why the winner wins,
//! then maps where the answer would change along the block size (the
//! engine of `map`). Everything printed comes from these measurements.
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use faultline::analysis::map_results::{MapResults, Stopped};
use faultline::analysis::ranking::{self, AdviseResults};
use faultline::method::{Advice, MethodKind, Populate};
use faultline::pattern::trace::{Follow, LoadedTrace, TraceOptions, TraceRef};
use faultline::pattern::Pattern;
use faultline::plan::factors::Factors;
use faultline::plan::precision::{Precision, Statistics};
use faultline::plan::CacheState;
use faultline::results::{CaseResult, RunResults};
use faultline::session::map::{factors as map_factors, MapSpec};
use faultline::session::{self, RunSpec, Session, EXIT_INTERRUPTED};
use faultline::size::{clap_size, format_size};
use faultline::stats::crossover::Axis;

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
    /// Your file (only ever read) [default: the plan's `file`].
    #[arg(long, required_unless_present = "plan")]
    pub file: Option<PathBuf>,
    /// Your access pattern: seq, random, zipf:THETA, hotset:P/Q, ... (as `run --pattern`).
    #[arg(long, required_unless_present_any = ["trace", "plan"], conflicts_with_all = ["trace", "plan"])]
    pub pattern: Option<Pattern>,
    /// Your access pattern as recorded: a fio iolog, strace output or offset,length CSV.
    #[arg(long, value_name = "FILE", conflicts_with = "plan")]
    pub trace: Option<PathBuf>,
    /// Your access pattern from a `faultline run` plan (TOML, as `run --plan`): its pattern or
    /// trace, block size, cache state and file, one value each.
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// Block size of the pattern [default: 4 KiB, 16 KiB for seq].
    #[arg(long, value_parser = clap_size, conflicts_with_all = ["trace", "plan"])]
    pub block: Option<u64>,
    /// Page-cache state before each trial [default: warm, or the plan's].
    #[arg(long, value_enum)]
    pub cache: Option<CacheState>,
    /// Map where the answer changes along the file size against this much memory: generated
    /// files from a quarter of SIZE to four times it, each trial in a memory cgroup limited to
    /// SIZE (needs root).
    #[arg(long, value_name = "SIZE", value_parser = clap_size)]
    pub memory_budget: Option<u64>,
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

/// The user's workload: from the flags, or from a plan (`--plan`).
struct Workload {
    /// The file, only ever read.
    file: PathBuf,
    /// The access pattern, when not a trace.
    pattern: Option<Pattern>,
    /// The recorded accesses.
    trace: Option<PathBuf>,
    /// The block size of the pattern.
    block: Option<u64>,
    /// The cache state.
    cache: CacheState,
}

/// A usage error.
fn usage(message: String) -> anyhow::Error {
    faultline::error::Error::Plan(message).into()
}

/// At most one value of a plan's list flag.
fn one_of<T: Copy>(values: &[T], plan: &std::path::Path, key: &str) -> anyhow::Result<Option<T>> {
    match values {
        [] => Ok(None),
        [v] => Ok(Some(*v)),
        many => Err(usage(format!(
            "--plan {}: advise takes one `{key}`, the plan gives {}; keep one (advise ranks read \
             paths for one workload)",
            plan.display(),
            many.len()
        ))),
    }
}

impl AdviseArgs {
    /// The workload, from the flags or the plan (the command line's
    /// `--file` and `--cache` override the plan's).
    fn workload(&self) -> anyhow::Result<Workload> {
        let Some(path) = &self.plan else {
            return Ok(Workload {
                file: self
                    .file
                    .clone()
                    .ok_or_else(|| usage("advise needs your file: --file FILE".into()))?,
                pattern: self.pattern,
                trace: self.trace.clone(),
                block: self.block,
                cache: self.cache.unwrap_or(CacheState::Warm),
            });
        };
        let run = super::plan_file::run_args(path)?;
        let pattern = one_of(&run.sweep.pattern, path, "pattern")?.filter(|p| *p != Pattern::Trace);
        let trace = run.sweep.trace.clone();
        if pattern.is_some() && trace.is_some() {
            return Err(usage(format!(
                "--plan {}: the plan gives both a `pattern` and a `trace`; keep one",
                path.display()
            )));
        }
        if pattern.is_none() && trace.is_none() {
            return Err(usage(format!(
                "--plan {}: the plan gives no `pattern` and no `trace`; advise needs your access \
                 pattern",
                path.display()
            )));
        }
        let file = self
            .file
            .clone()
            .or(run.sweep.file.clone())
            .ok_or_else(|| {
                usage(format!(
                    "--plan {}: advise needs your file: --file FILE, or `file` in the plan",
                    path.display()
                ))
            })?;
        Ok(Workload {
            file,
            pattern,
            trace,
            block: one_of(&run.sweep.block, path, "block")?,
            cache: match self.cache {
                Some(c) => c,
                None => one_of(&run.sweep.cache, path, "cache")?.unwrap_or(CacheState::Warm),
            },
        })
    }
}

impl AdviseArgs {
    /// The time for everything, s.
    fn budget(&self) -> f64 {
        self.max_time.unwrap_or(180.0)
    }

    /// The smallest difference that counts.
    fn margin(&self) -> f64 {
        self.min_effect
            .unwrap_or(super::precision_args::DEFAULT_MIN_EFFECT)
    }

    /// Measured runs per candidate, the fewest.
    fn runs(&self) -> u32 {
        self.runs.unwrap_or(5)
    }

    /// The statistics of the ranking, or of one map, given `max_time_s`.
    fn statistics(&self, max_time_s: f64) -> Statistics {
        Statistics {
            precision: Some(Precision {
                target: 0.03,
                max_runs: self.runs().max(20),
                max_time_s: Some(max_time_s),
                until_decided: false,
            }),
            adjustment: Default::default(),
            min_trial_ns: self.min_trial_time.map(|s| (s * 1e9) as u64),
            min_effect: Some(self.margin()),
        }
    }
}

/// Runs `faultline advise`.
pub fn execute(args: &AdviseArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let work = args.workload()?;
    if let Some(limit) = args.memory_budget {
        // Said before anything runs: the size map needs a memory cgroup.
        faultline::plan::memory_budget::for_run(&faultline::plan::memory_budget::probe(), limit)?;
    }
    let config = RunSpec {
        data_dir: session::data_dir(args.data_dir.clone()),
        file: Some(work.file.clone()),
        quiet: args.quiet,
        statistics: Some(args.statistics(args.budget() / 2.0)),
        ..RunSpec::default()
    };
    check_files(args, &work, &config.data_dir)?;
    let size = session::planned_file_sizes(&config, &[])?[0];
    let candidates = Candidates::of(&work, size, args.runs())?;
    let (methods, skipped) = candidates.runnable(size, &work.file)?;
    let mut factors = candidates.base.clone();
    factors.methods = methods;
    let plan = factors.plan(&[size])?;
    let workload = candidates.describe(&work, size);
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
    let head = ranking::head_to_head(&run, &ranking, args.margin());
    let why = why_the_winner(&run, &ranking);
    let pair = mapped_pair(&candidates.base, &run, &ranking);
    let maps = Maps {
        args,
        work: &work,
        config: &config,
        candidates: &candidates,
        started,
        size,
    };
    let mut not_mapped = Vec::new();
    let block_map = maps.blocks(pair.as_ref(), &mut not_mapped)?;
    let size_map = maps.sizes(pair.as_ref(), interrupted(&block_map), &mut not_mapped)?;
    let results = AdviseResults {
        faultline_advise: faultline::analysis::ranking::ADVISE_FORMAT,
        workload,
        skipped,
        ranking,
        head_to_head: head,
        why,
        run,
        block_map,
        size_map,
        not_mapped,
    };
    if let Some(p) = &args.export_json {
        faultline::report::advise::write_json(&results, p)?;
    }
    print!("{}", faultline::report::advise::render_text(&results));
    if interrupted(&results.block_map) || interrupted(&results.size_map) {
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    Ok(ExitCode::SUCCESS)
}

/// No output on an input or on faultline's own files, before anything runs.
fn check_files(args: &AdviseArgs, work: &Workload, dir: &std::path::Path) -> anyhow::Result<()> {
    let mut files = faultline::files::outputs::Files::new(&[
        dir.to_path_buf(),
        dir.join("runs"),
        dir.join(faultline::files::scratch::SUBDIR),
    ]);
    files.input("the data directory", dir)?;
    files.input("--file", &work.file)?;
    if let Some(p) = &args.plan {
        files.input("--plan", p)?;
    }
    if let Some(t) = &work.trace {
        files.input("--trace", t)?;
    }
    if let Some(p) = &args.export_json {
        files.output("--export-json", p)?;
    }
    Ok(())
}

/// The candidates' shared factors: the user's pattern (or trace), block
/// size and cache state, with mmap's populate and madvise() variants.
struct Candidates {
    /// The factors of the read() candidate; each candidate swaps its method in.
    base: Factors,
    /// The access pattern (`trace` for a trace).
    pattern: Pattern,
    /// The block size of the pattern.
    block: u64,
}

impl Candidates {
    /// The candidates for `work` on a file of `size` bytes, `runs` runs each
    /// (a trace is read now, for the file's size).
    fn of(work: &Workload, size: u64, runs: u32) -> anyhow::Result<Candidates> {
        let pattern = work.pattern.unwrap_or(Pattern::Trace);
        let block = work.block.unwrap_or(if pattern == Pattern::Seq {
            16 << 10
        } else {
            4 << 10
        });
        let trace = match &work.trace {
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
            patterns: work.pattern.into_iter().collect(),
            blocks: if trace.is_some() {
                Vec::new()
            } else {
                vec![block]
            },
            user_file: true,
            caches: vec![work.cache],
            runs: Some(runs),
            trace,
            populates: vec![Populate::None, Populate::Madvise],
            advices: vec![Advice::Normal, hint],
            ..Factors::default()
        };
        Ok(Candidates {
            base,
            pattern,
            block,
        })
    }

    /// The candidate methods that can run here, and why each other one
    /// cannot: each alone, checked as its run would be (what cannot run is
    /// said, not measured). read() must run.
    fn runnable(
        &self,
        size: u64,
        file: &std::path::Path,
    ) -> anyhow::Result<(Vec<MethodKind>, Vec<String>)> {
        let mut methods = Vec::new();
        let mut skipped = Vec::new();
        for m in CANDIDATES {
            let mut one = self.base.clone();
            one.methods = vec![m];
            let checked = one
                .plan(&[size])
                .and_then(|p| faultline::plan::preflight::check_plan(&p, file));
            match checked {
                Ok(()) => methods.push(m),
                Err(e) if m == MethodKind::Read => return Err(e.into()),
                Err(e) => skipped.push(format!("{m}: {e}")),
            }
        }
        Ok((methods, skipped))
    }

    /// The workload in words, e.g. `seq 16 KiB reads of F (1 GiB), warm`.
    fn describe(&self, work: &Workload, size: u64) -> String {
        format!(
            "{} of {} ({}), {}",
            match &self.base.trace {
                Some(t) => format!("the reads of {}", t.reference.describe()),
                None => format!("{} {} reads", self.pattern, format_size(self.block)),
            },
            work.file.display(),
            format_size(size),
            work.cache
        )
    }
}

/// Why the winner beat the runner-up, from their counters; `None` with
/// fewer than two ranked candidates with summaries.
fn why_the_winner(run: &RunResults, ranking: &[ranking::Ranked]) -> Option<String> {
    use faultline::report::verdict::{evidence, explain, Side as V};
    let [first, second, ..] = ranking else {
        return None;
    };
    let ws = run.case(first.case)?.summary.as_ref()?;
    let ss = run.case(second.case)?.summary.as_ref()?;
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
        Some(reason) => format!("{reason} ({} vs {}: {counters})", first.label, second.label),
        None => format!("{} vs {}: {counters}", first.label, second.label),
    })
}

/// The pair both maps compare: the winner against the fastest candidate of
/// another method, the rival as A and the winner as B, with the mmap
/// candidate's options; `None` without two such candidates.
fn mapped_pair(base: &Factors, run: &RunResults, ranking: &[ranking::Ranked]) -> Option<Factors> {
    let winner = ranking.first().and_then(|r| run.case(r.case));
    let rival = ranking
        .iter()
        .filter_map(|r| run.case(r.case))
        .find(|c| winner.is_some_and(|w| w.case.method != c.case.method));
    let top: Vec<&CaseResult> = winner.into_iter().chain(rival).collect();
    let [w, r] = top.as_slice() else {
        return None;
    };
    let mut f = base.clone();
    f.methods = vec![r.case.method, w.case.method];
    let mapped = |c: &CaseResult| c.case.method == MethodKind::Mmap;
    let m = if mapped(w) { w } else { r };
    f.populates = vec![m.case.populate.unwrap_or(Populate::None)];
    f.advices = vec![m.case.advice.unwrap_or(Advice::Normal)];
    Some(f)
}

/// Whether a map was interrupted.
fn interrupted(m: &Option<MapResults>) -> bool {
    m.as_ref()
        .is_some_and(|m| m.stopped == Stopped::Interrupted)
}

/// What both maps share: the flags, the workload, the session's settings
/// and the clock of the whole budget.
struct Maps<'a> {
    args: &'a AdviseArgs,
    work: &'a Workload,
    config: &'a RunSpec,
    candidates: &'a Candidates,
    started: Instant,
    size: u64,
}

impl Maps<'_> {
    /// Seconds of `--max-time` left.
    fn left(&self) -> f64 {
        self.args.budget() - self.started.elapsed().as_secs_f64()
    }

    /// Whether the candidates read a trace (which fixes its own offsets).
    fn traced(&self) -> bool {
        self.candidates.base.trace.is_some()
    }

    /// Where the answer changes along the block size, from 4 KiB to a
    /// quarter of the file (at most 1 MiB), with its share of the time
    /// left; or why it is not mapped (in `not_mapped`).
    fn blocks(
        &self,
        pair: Option<&Factors>,
        not_mapped: &mut Vec<String>,
    ) -> anyhow::Result<Option<MapResults>> {
        let maps = if self.args.memory_budget.is_some() {
            2.0
        } else {
            1.0
        };
        let left = self.left();
        let high = (1u64 << 20).min(self.size / 4);
        match pair {
            _ if self.traced() => {
                not_mapped.push("block size: a trace fixes its own offsets and lengths".to_string())
            }
            Some(_) if left < 10.0 => not_mapped.push(format!(
                "block size: {:.0} s of --max-time left, too little to map",
                left.max(0.0)
            )),
            Some(_) if high <= 4096 => not_mapped.push(format!(
                "block size: the file ({}) is too small to map blocks from 4 KiB",
                format_size(self.size)
            )),
            Some(f) => {
                let share = left / maps;
                let mut config = self.config.clone();
                config.statistics = Some(self.args.statistics(share));
                let factor = map_factors::find("block").expect("block is a map factor");
                let spec = MapSpec {
                    factor,
                    axis: Axis {
                        low: 4096.0,
                        high: high as f64,
                        scale: factor.scale,
                        resolution: factor.resolution,
                    },
                    factors: f.clone(),
                    size: self.size,
                    config,
                    budget_s: share,
                    margin: self.args.margin(),
                    fixed: format!(
                        "{}, your file, {}",
                        self.candidates.pattern, self.work.cache
                    ),
                    export_json: None,
                    report: None,
                    quiet: self.args.quiet,
                };
                spec.check()?;
                return Ok(Some(spec.run()?.results));
            }
            None => not_mapped.push("block size: fewer than two candidates measured".into()),
        }
        Ok(None)
    }

    /// With `--memory-budget`: where the answer changes along the file
    /// size against that much memory, on generated files from a quarter
    /// of it to four times it, with the time left; or why it is not mapped
    /// (in `not_mapped`; nothing when the block map was interrupted).
    fn sizes(
        &self,
        pair: Option<&Factors>,
        blocks_interrupted: bool,
        not_mapped: &mut Vec<String>,
    ) -> anyhow::Result<Option<MapResults>> {
        let left = self.left();
        match (pair, self.args.memory_budget) {
            (_, None) => not_mapped.push(
                "file size against the memory available: give --memory-budget SIZE (a memory \
                 cgroup: needs root) to map it on generated files with your pattern"
                    .to_string(),
            ),
            _ if self.traced() => not_mapped.push(
                "file size against the memory available: a trace's offsets are your file's"
                    .to_string(),
            ),
            _ if blocks_interrupted => {}
            (Some(_), Some(_)) if left < 10.0 => not_mapped.push(format!(
                "file size against the memory available: {:.0} s of --max-time left, too little \
                 to map",
                left.max(0.0)
            )),
            (Some(f), Some(limit)) => {
                let mut f = f.clone();
                f.user_file = false;
                let probe = faultline::plan::memory_budget::probe();
                f.memory_budget = Some(faultline::plan::memory_budget::for_run(&probe, limit)?);
                let mut generated = self.config.clone();
                generated.file = None;
                generated.statistics = Some(self.args.statistics(left));
                let factor = map_factors::find("size").expect("size is a map factor");
                let spec = MapSpec {
                    factor,
                    axis: Axis {
                        low: (limit / 4).max(4096) as f64,
                        high: limit.saturating_mul(4) as f64,
                        scale: factor.scale,
                        resolution: factor.resolution,
                    },
                    factors: f,
                    size: self.size,
                    config: generated,
                    budget_s: left,
                    margin: self.args.margin(),
                    fixed: format!(
                        "{} {}, generated files, {}, memory budget {}",
                        self.candidates.pattern,
                        format_size(self.candidates.block),
                        self.work.cache,
                        format_size(limit)
                    ),
                    export_json: None,
                    report: None,
                    quiet: self.args.quiet,
                };
                spec.check()?;
                return Ok(Some(spec.run()?.results));
            }
            (None, Some(_)) => not_mapped.push(
                "file size against the memory available: fewer than two candidates measured".into(),
            ),
        }
        Ok(None)
    }
}
