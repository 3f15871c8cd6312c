//! `faultline map --method A,B --over FACTOR=LOW..HIGH`: where along one
//! factor the verdict of B against A changes. Its flags, their translation
//! into a [`MapSpec`], and the printed answer; the search is
//! [`faultline::session::map`].
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use faultline::analysis::map_results::Stopped;
use faultline::error::Error;
use faultline::method::{Advice, MethodKind, Populate};
use faultline::pattern::Pattern;
use faultline::plan::factors::Factors;
use faultline::plan::precision::{Precision, Statistics};
use faultline::plan::CacheState;
use faultline::session::map::factors::{self, MapFactor};
use faultline::session::map::plane::PlaneSpec;
use faultline::session::map::MapSpec;
use faultline::session::{self, RunSpec, EXIT_INTERRUPTED};
use faultline::size::{clap_size, format_size};
use faultline::stats::crossover::{Axis, Scale};
use faultline::workload::WorkloadKind;

/// The file size of a map when neither `--size` nor the factor sets it.
pub const DEFAULT_MAP_SIZE: u64 = 64 << 20;
/// The time budget of a map when `--max-time` is not given, seconds.
pub const DEFAULT_MAP_TIME_S: f64 = 300.0;

/// Flags of `faultline map`.
#[derive(Debug, Args)]
pub struct MapArgs {
    /// The two methods: A (the baseline) and B, e.g. read,mmap.
    #[arg(long, value_delimiter = ',', value_enum, required = true)]
    pub method: Vec<MethodKind>,
    /// The factor and its range, FACTOR=LOW..HIGH, e.g. block=4k..1M. Factors: block, size,
    /// working-set, threads, depth, stride, zipf, hot-share (docs/map.md).
    #[arg(long, value_name = "FACTOR=LOW..HIGH", required = true)]
    pub over: Vec<String>,
    /// How tight a bracket must be: a ratio for sizes, threads, depths and strides (e.g. 1.25x),
    /// a difference for zipf (0.1) and hot-share (5) [default: 1.25x, 0.1, 5].
    #[arg(long, value_name = "R")]
    pub resolution: Option<String>,
    /// Most time for the whole search (e.g. 90s, 5m) [default: 5m].
    #[arg(long, value_name = "TIME", value_parser = super::precision_args::parse_duration_s)]
    pub max_time: Option<f64>,
    /// The block order at every point [default: random].
    #[arg(long)]
    pub pattern: Option<Pattern>,
    /// The block size at every point [default: 4 KiB, 16 KiB for seq].
    #[arg(long, value_parser = clap_size)]
    pub block: Option<u64>,
    /// The generated file's size [default: 64 MiB].
    #[arg(long, value_parser = clap_size)]
    pub size: Option<u64>,
    /// Page-cache state before each trial [default: warm].
    #[arg(long, value_enum, default_value_t = CacheState::Warm)]
    pub cache: CacheState,
    /// What is done with each block [default: sum].
    #[arg(long, value_enum)]
    pub workload: Option<WorkloadKind>,
    /// Threads per trial, 1 to 1024.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(faultline::plan::threads::MAX_THREADS)))]
    pub threads: Option<u32>,
    /// io_uring requests in flight, 1 to 256.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(faultline::method::MAX_DEPTH)))]
    pub depth: Option<u32>,
    /// mmap pre-faulting.
    #[arg(long, value_enum)]
    pub populate: Option<Populate>,
    /// stdio's buffer, 1 byte to 64 MiB [default: 8 KiB].
    #[arg(long, value_name = "SIZE", value_parser = clap_size)]
    pub stdio_buffer: Option<u64>,
    /// madvise() hint for the mapping.
    #[arg(long, value_enum)]
    pub advice: Option<Advice>,
    /// Run each trial in a memory cgroup that limits its page cache to SIZE (needs root): with
    /// --over size, the map crosses the memory available.
    #[arg(long, value_name = "SIZE", value_parser = clap_size)]
    pub memory_budget: Option<u64>,
    /// Measured runs per point, the fewest, 2 to 1000 [default: 5].
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub runs: Option<u32>,
    /// Add runs to a point until its 95% CI is within ±P, up to --max-runs [default: 3%].
    #[arg(long, value_name = "P", value_parser = super::precision_args::parse_precision)]
    pub precision: Option<f64>,
    /// Most measured runs per point [default: 20].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=10_000))]
    pub max_runs: Option<u32>,
    /// The smallest difference that counts: faster or slower only beyond ×/÷ (1 + P), no
    /// difference when the CI lies within it [default: 5%].
    #[arg(long, value_name = "P", value_parser = super::precision_args::parse_precision)]
    pub min_effect: Option<f64>,
    /// Repeat a warm trial's pass until its main loops add up to this long (e.g. 20ms).
    #[arg(long, value_name = "TIME", value_parser = super::precision_args::parse_duration_s)]
    pub min_trial_time: Option<f64>,
    /// Seed of random orders and generated content.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// faultline's data directory [default: $XDG_CACHE_HOME/faultline].
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Write every point (with its samples) and the crossovers as JSON (rewritten after every
    /// point).
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Write an HTML page: the ratio along the factor with its CIs and the brackets (rewritten
    /// after every point).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// The answer only: no line per point, no table.
    #[arg(long, short)]
    pub quiet: bool,
    /// How each point's trials are checked for interference (as `run`'s).
    #[command(flatten)]
    pub interference: super::interference_args::InterferenceArgs,
}

/// A usage error.
fn usage(message: String) -> anyhow::Error {
    Error::Plan(message).into()
}

/// A factor `--over` sweeps, with the low and high ends of its range.
pub type Over = (&'static MapFactor, f64, f64);

/// `FACTOR=LOW..HIGH`, checked against the factor's range.
pub fn parse_over(text: &str) -> anyhow::Result<Over> {
    let bad = |why: String| usage(format!("--over {text}: {why}"));
    let (name, range) = text
        .split_once('=')
        .ok_or_else(|| bad("give FACTOR=LOW..HIGH, e.g. block=4k..1M".into()))?;
    let factor = factors::find(name.trim()).ok_or_else(|| {
        bad(format!(
            "unknown factor '{}'; map sweeps {}",
            name.trim(),
            factors::names()
        ))
    })?;
    let (low, high) = range
        .split_once("..")
        .ok_or_else(|| bad("give the range as LOW..HIGH, e.g. 4k..1M".into()))?;
    let low = factor.unit.parse(low).map_err(bad)?;
    let high = factor.unit.parse(high).map_err(bad)?;
    if low >= high {
        return Err(bad("LOW must be below HIGH".into()));
    }
    let (min, max) = factor.range;
    if low < min || high > max {
        return Err(bad(format!(
            "{} takes {} to {}",
            factor.name,
            factor.unit.label(min),
            factor.unit.label(max)
        )));
    }
    Ok((factor, low, high))
}

/// `--resolution` for `factor`: `1.25x` or `1.25` (> 1) on a log scale, a
/// positive difference on a linear one.
pub fn parse_resolution(text: Option<&str>, factor: &MapFactor) -> anyhow::Result<f64> {
    let Some(text) = text else {
        return Ok(factor.resolution);
    };
    let t = text.trim();
    let value = t
        .trim_end_matches('x')
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite());
    match (factor.scale, value) {
        (Scale::Log, Some(v)) if v > 1.0 && v <= 16.0 => Ok(v),
        (Scale::Log, _) => Err(usage(format!(
            "--resolution {text}: {} is searched by ratios; give a ratio above 1 and at most 16 \
             (e.g. 1.25x)",
            factor.name
        ))),
        (Scale::Linear, Some(v)) if v > 0.0 && !t.ends_with('x') => Ok(v),
        (Scale::Linear, _) => Err(usage(format!(
            "--resolution {text}: {} is searched by differences; give a positive number (e.g. {})",
            factor.name, factor.resolution
        ))),
    }
}

impl MapArgs {
    /// The map to run, checked.
    pub fn spec(&self) -> anyhow::Result<MapSpec> {
        if self.method.len() != 2 || self.method[0] == self.method[1] {
            return Err(usage(
                "--method: map compares two different methods, e.g. --method read,mmap".into(),
            ));
        }
        let (overs, resolutions) = self.overs()?;
        let (factor, low, high) = overs[0];
        let pattern = self.pattern.unwrap_or(Pattern::Random);
        let block = self.block.unwrap_or(if pattern == Pattern::Seq {
            16 << 10
        } else {
            4 << 10
        });
        let size = self.size.unwrap_or(DEFAULT_MAP_SIZE);
        let runs = self.runs.unwrap_or(5);
        let max_runs = self.max_runs.unwrap_or(20);
        if max_runs < runs {
            return Err(usage(format!(
                "--max-runs {max_runs} is below --runs {runs}; give at least {runs}"
            )));
        }
        let margin = self.min_effect.unwrap_or(0.05);
        let mut f = Factors {
            methods: self.method.clone(),
            patterns: vec![pattern],
            blocks: vec![block],
            caches: vec![self.cache],
            workloads: self.workload.into_iter().collect(),
            threads: self.threads.into_iter().collect(),
            depths: self.depth.into_iter().collect(),
            populates: vec![self.populate.unwrap_or(Populate::None)],
            advices: vec![self.advice.unwrap_or(Advice::Normal)],
            stdio_buffers: self.stdio_buffer.into_iter().collect(),
            runs: Some(runs),
            seed: self.seed,
            ..Factors::default()
        };
        if let Some(limit) = self.memory_budget {
            let probe = faultline::plan::memory_budget::probe();
            f.memory_budget = Some(faultline::plan::memory_budget::for_run(&probe, limit)?);
        }
        let spec = MapSpec {
            factor,
            axis: Axis {
                low,
                high,
                scale: factor.scale,
                resolution: resolutions[0],
            },
            factors: f,
            size,
            config: self.run_spec(max_runs, margin),
            budget_s: self.max_time.unwrap_or(DEFAULT_MAP_TIME_S),
            margin,
            fixed: self.fixed(&overs, pattern, block, size),
            export_json: self.export_json.clone(),
            report: self.report.clone(),
            quiet: self.quiet,
        };
        spec.check()?;
        Ok(spec)
    }

    /// The factors `--over` sweeps, each with its range, and the resolution
    /// of each; refused: more than two, the same one twice, two that both
    /// set the access pattern, or one whose own flag is given too.
    fn overs(&self) -> anyhow::Result<(Vec<Over>, Vec<f64>)> {
        if self.over.len() > 2 {
            return Err(usage(
                "--over: at most two factors (a map over one factor, or a plane over two)".into(),
            ));
        }
        let overs = self
            .over
            .iter()
            .map(|o| parse_over(o))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let resolutions: Vec<&str> = match self.resolution.as_deref() {
            None => Vec::new(),
            Some(r) if overs.len() == 2 && r.contains(',') => r.split(',').collect(),
            Some(r) => vec![r; overs.len()],
        };
        if resolutions.len() > overs.len() {
            return Err(usage(format!(
                "--resolution {}: give one value, or one per --over",
                self.resolution.as_deref().unwrap_or_default()
            )));
        }
        let resolutions = overs
            .iter()
            .enumerate()
            .map(|(i, o)| parse_resolution(resolutions.get(i).copied(), o.0))
            .collect::<anyhow::Result<Vec<f64>>>()?;
        if let [a, b] = overs.as_slice() {
            if a.0.name == b.0.name {
                return Err(usage(format!(
                    "--over {}: the same factor twice; give two different factors",
                    a.0.name
                )));
            }
        }
        let set_pattern: Vec<&str> = overs
            .iter()
            .map(|o| o.0.name)
            .filter(|n| sets_pattern(n))
            .collect();
        if set_pattern.len() > 1 {
            return Err(usage(format!(
                "--over {} and --over {}: both set the access pattern; map one of them against \
                 another factor (block, size, threads, depth)",
                set_pattern[0], set_pattern[1]
            )));
        }
        for (factor, _, _) in &overs {
            let clash = match factor.name {
                "block" => self.block.is_some().then_some("--block"),
                "size" => self.size.is_some().then_some("--size"),
                "threads" => self.threads.is_some().then_some("--threads"),
                "depth" => self.depth.is_some().then_some("--depth"),
                _ => (sets_pattern(factor.name) && self.pattern.is_some()).then_some("--pattern"),
            };
            if let Some(flag) = clash {
                return Err(usage(format!(
                    "{flag} and --over {}: the factor swept takes its values from --over; leave {flag} out",
                    factor.name
                )));
            }
        }
        Ok((overs, resolutions))
    }

    /// The session's settings for every point: the precision target with
    /// `max_runs`, and `margin` the smallest difference called.
    fn run_spec(&self, max_runs: u32, margin: f64) -> RunSpec {
        RunSpec {
            interference: self.interference.settings(),
            data_dir: session::data_dir(self.data_dir.clone()),
            seed: self.seed,
            quiet: self.quiet,
            statistics: Some(Statistics {
                precision: Some(Precision {
                    target: self.precision.unwrap_or(0.03),
                    max_runs,
                    max_time_s: None,
                    until_decided: false,
                }),
                adjustment: Default::default(),
                min_trial_ns: self.min_trial_time.map(|s| (s * 1e9) as u64),
                min_effect: Some(margin),
            }),
            ..RunSpec::default()
        }
    }

    /// The factors held fixed, in words (`random, 4 KiB, sum, warm, 64 MiB
    /// file`): those `overs` does not sweep.
    fn fixed(&self, overs: &[Over], pattern: Pattern, block: u64, size: u64) -> String {
        let swept = |name: &str| overs.iter().any(|o| o.0.name == name);
        let mut fixed = Vec::new();
        if !overs.iter().any(|o| sets_pattern(o.0.name)) {
            fixed.push(pattern.to_string());
        }
        if !swept("block") {
            fixed.push(format_size(block));
        }
        fixed.push(
            self.workload
                .map_or_else(|| "sum".to_string(), |w| w.to_string()),
        );
        fixed.push(self.cache.to_string());
        if !swept("size") {
            fixed.push(format!("{} file", format_size(size)));
        }
        if let Some(t) = self.threads {
            fixed.push(format!("{t} threads"));
        }
        fixed.join(", ")
    }

    /// The plane to map when `--over` is given twice (the first factor the
    /// columns, the second the rows), checked; `None` with one `--over`.
    pub fn plane(&self) -> anyhow::Result<Option<PlaneSpec>> {
        let map = self.spec()?;
        let Some(second) = self.over.get(1) else {
            return Ok(None);
        };
        let (y, low, high) = parse_over(second)?;
        let resolution = match self.resolution.as_deref() {
            Some(r) if r.contains(',') => r.split(',').nth(1),
            other => other,
        };
        let plane = PlaneSpec {
            map,
            y,
            y_axis: Axis {
                low,
                high,
                scale: y.scale,
                resolution: parse_resolution(resolution, y)?,
            },
        };
        plane.check()?;
        Ok(Some(plane))
    }
}

/// Whether sweeping the factor `name` sets the access pattern.
fn sets_pattern(name: &str) -> bool {
    matches!(name, "working-set" | "stride" | "zipf" | "hot-share")
}

/// Runs `faultline map`.
pub fn execute(args: &MapArgs) -> anyhow::Result<ExitCode> {
    if let Some(plane) = args.plane()? {
        return execute_plane(args, &plane);
    }
    let spec = args.spec()?;
    let outcome = spec.run()?;
    let r = &outcome.results;
    use faultline::report::map;
    if args.quiet {
        println!("{}", map::words(r));
        for line in map::crossover_lines(r) {
            println!("{line}");
        }
    } else {
        print!("{}", map::render_text(r));
    }
    for w in &r.warnings {
        faultline::console::warning(w);
    }
    if let Some(line) = map::interference_line(r) {
        faultline::console::warning(&line);
    }
    if r.stopped == Stopped::Interrupted {
        eprintln!(
            "interrupted: {} point(s) measured are in the exports; a map is not resumed, run it again",
            r.points.len()
        );
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs a 2-D map and prints its answer.
fn execute_plane(args: &MapArgs, plane: &PlaneSpec) -> anyhow::Result<ExitCode> {
    use faultline::report::map::plane;
    let r = plane.run()?;
    if args.quiet {
        for line in plane::words(&r) {
            println!("{line}");
        }
        for line in plane::boundary_lines(&r) {
            println!("  {line}");
        }
    } else {
        print!("{}", plane::render_text(&r));
    }
    for w in &r.warnings {
        faultline::console::warning(w);
    }
    if r.stopped == Stopped::Interrupted {
        eprintln!(
            "interrupted: {} cell(s) measured are in the exports; a map is not resumed, run it again",
            r.cells.len()
        );
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    Ok(ExitCode::SUCCESS)
}
