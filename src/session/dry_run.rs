//! What a plan would need before it runs: the test files it reads (and
//! which of them must still be generated), the disk space at its peak, the
//! bytes its trials pass over. `--dry-run` prints it; a fresh session refuses
//! a plan the disk cannot hold ([`check_disk_space`]).
use std::path::PathBuf;

use super::RunSpec;
use crate::error::Result;
use crate::files::image;
use crate::plan::{Case, Plan};

/// Refuses, before anything is generated, a plan whose test files do not
/// fit on the data directory's file system (files already there count as 0).
pub fn check_disk_space(plan: &Plan, config: &RunSpec) -> Result<()> {
    let need = DiskNeed::of(plan, config);
    if need.total() == 0 {
        return Ok(());
    }
    crate::files::disk_space::check_writable(&need.dir, &need.probe)?;
    if let Some(available) = need.available {
        crate::files::disk_space::check(need.total(), available, &need.dir, config.size_given)?;
    }
    Ok(())
}

/// What a plan needs of the data directory's file system.
struct DiskNeed {
    /// The data directory.
    dir: PathBuf,
    /// The test files the plan reads, by size: generated data files, and
    /// the PPM images of its scale cases.
    files: Vec<TestFile>,
    /// Bytes of those files not generated yet.
    to_generate: u128,
    /// The largest file one write trial creates (scratch files are removed
    /// after each trial, so only one exists at a time).
    largest_write: u64,
    /// Free bytes on its file system, when known.
    available: Option<u64>,
    /// The data directory, or its nearest ancestor that exists.
    probe: PathBuf,
}

impl DiskNeed {
    fn of(plan: &Plan, config: &RunSpec) -> DiskNeed {
        let dir = config.data_dir.clone();
        // The user's file (--file) is read as it is: nothing is generated.
        // A file set (--files) is a directory of its own, not one file.
        let mut sizes: Vec<u64> = plan
            .cases
            .iter()
            .filter(|c| !c.writes_file() || c.scale.is_some())
            .filter(|c| c.files.is_none())
            .filter(|_| config.file.is_none())
            .map(|c| c.file_size)
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        let mut sets: Vec<(crate::plan::FileSet, u64)> = plan
            .cases
            .iter()
            .filter_map(|c| c.files.map(|set| (set, c.seed)))
            .collect();
        sets.sort_unstable();
        sets.dedup();
        let mut files: Vec<TestFile> = sizes
            .into_iter()
            .map(|size| TestFile::of(plan, size, config.seed, config.image))
            .collect();
        files.extend(
            sets.into_iter()
                .map(|(set, seed)| TestFile::of_set(set, seed)),
        );
        let to_generate = files
            .iter()
            .filter(|f| !f.in_place(&dir))
            .map(|f| u128::from(f.size))
            .sum();
        let largest_write = plan
            .cases
            .iter()
            .filter(|c| c.writes_file())
            .map(|c| c.file_size)
            .max()
            .unwrap_or(0);
        // The data directory may not exist yet: ask about its nearest ancestor.
        let probe = dir
            .ancestors()
            .find(|p| p.exists())
            .unwrap_or(std::path::Path::new("/"))
            .to_path_buf();
        let available = crate::files::disk_space::available_bytes(&probe);
        DiskNeed {
            dir,
            files,
            to_generate,
            largest_write,
            available,
            probe,
        }
    }

    /// Bytes the run will add to the file system at its peak.
    fn total(&self) -> u128 {
        self.to_generate + u128::from(self.largest_write)
    }
}

/// One test file a plan reads, as the run prepares it.
struct TestFile {
    /// Its length in bytes.
    size: u64,
    /// Its name in the data directory.
    name: String,
    /// The PPM image's width and height, for a scale case's image.
    image: Option<(u32, u32)>,
    /// The file set and its seed, for a set's directory (`name`).
    set: Option<(crate::plan::FileSet, u64)>,
}

impl TestFile {
    /// The file of length `size` that `plan`'s cases read: the generated PPM
    /// image of that length when a scale case uses the size (as the run
    /// prepares it), else generated data from `seed`.
    /// A run's `--image` (`image`) is the image it generates, whatever
    /// other dimensions give the same length.
    fn of(plan: &Plan, size: u64, seed: u64, image: Option<(u32, u32)>) -> TestFile {
        let scales = plan
            .cases
            .iter()
            .any(|c| c.file_size == size && c.scale.is_some());
        let asked = image.filter(|&(w, h)| image::image_len(w, h) == size);
        match scales
            .then(|| asked.or_else(|| image::image_dims(size)))
            .flatten()
        {
            Some((w, h)) => TestFile {
                size,
                name: image::image_name(w, h, seed),
                image: Some((w, h)),
                set: None,
            },
            None => TestFile {
                size,
                name: crate::files::dataset::generated_name(size, seed),
                image: None,
                set: None,
            },
        }
    }

    /// The directory of file set `set` generated from `seed`.
    fn of_set(set: crate::plan::FileSet, seed: u64) -> TestFile {
        TestFile {
            size: set.total(seed),
            name: set.dir_name(seed),
            image: None,
            set: Some((set, seed)),
        }
    }

    /// Whether the run would find it in the data directory `dir` and reuse
    /// it: a file of its length, or a set whole.
    fn in_place(&self, dir: &std::path::Path) -> bool {
        match self.set {
            Some((set, seed)) => crate::files::file_set::is_whole(dir, &set, seed),
            None => std::fs::metadata(dir.join(&self.name)).is_ok_and(|m| m.len() == self.size),
        }
    }

    /// `4 GiB`, `3.75 MiB (1280x1024 PPM image, NAME)`, or
    /// `10000 files of 4 KiB, 39.1 MiB in all`.
    fn describe(&self) -> String {
        let size = crate::size::format_size(self.size);
        match (self.image, self.set) {
            (Some((w, h)), _) => format!("{size} ({w}x{h} PPM image, {})", self.name),
            (None, Some((set, seed))) => set.describe_total(seed),
            (None, None) => size,
        }
    }
}

/// How many times one trial of `case` passes over its file: once per
/// process, and once per thread when each thread runs the whole workload
/// (split threads share one pass).
pub fn passes(case: &Case) -> u64 {
    let threads = case.threads.map_or(1, |t| match t.mode {
        crate::plan::ThreadMode::Split => 1,
        crate::plan::ThreadMode::Replicate => u64::from(t.count),
    });
    threads * u64::from(case.procs.unwrap_or(1).max(1))
}

/// The bytes one pass of `case` moves: a replayed trace's reads (or, for a
/// write method, its writes), else the whole file.
pub fn bytes_per_pass(case: &Case) -> u64 {
    match &case.trace {
        Some(t) if case.method.writes() => t.write_bytes,
        Some(t) => t.read_bytes,
        None => case.file_size,
    }
}

/// The device requests one cold pass of `case` makes at least: a trace's
/// operations, else one per block.
fn requests_per_pass(case: &Case) -> u64 {
    match &case.trace {
        Some(t) if case.method.writes() => t.writes,
        Some(t) => t.reads,
        None => case.file_size.div_ceil(case.block_size.max(1)),
    }
}

/// What the precision target takes at this machine's noise (the last
/// `faultline calibrate`'s spread of one paired log ratio), said before the
/// run: the runs per case it needs, and when that is more than allowed,
/// what would reach it or what the allowed runs reach. Nothing without a
/// precision target; a line saying the noise is unknown without a calibrate.
fn precision_forecast(config: &RunSpec) -> Vec<String> {
    let Some(p) = config.statistics_or_default().precision else {
        return Vec::new();
    };
    let pct = |f: f64| format!("±{:.1}%", f * 100.0);
    let Some(noise) = crate::files::noise::read(&config.data_dir) else {
        return vec![format!(
            "  noise: not yet measured here (`faultline calibrate` measures it), so the runs {} \
             takes are planned from each comparison's first runs",
            pct(p.target)
        )];
    };
    let level = 0.95;
    let needed = crate::stats::power::pairs_needed(noise.pair_sd, p.target.ln_1p(), level, 100_000);
    let head = format!(
        "  noise: {} per pair (the last calibrate, {}): {}",
        pct(noise.pair_sd),
        noise.when,
        pct(p.target)
    );
    let line = match needed {
        Some(n) if n <= p.max_runs as usize => {
            format!(
                "{head} takes about {n} runs per case, within the {} allowed",
                p.max_runs
            )
        }
        _ => {
            let reached =
                crate::stats::power::half_width(noise.pair_sd, p.max_runs as usize, level).exp_m1();
            let takes = needed.map_or("more than 100000 runs per case".to_string(), |n| {
                format!("about {n} runs per case")
            });
            format!(
                "{head} takes {takes}, more than the {} allowed, so it is likely not reached; \
                 {} runs reach about {} (--precision {:.0}%){}",
                p.max_runs,
                p.max_runs,
                pct(reached),
                (reached * 100.0).ceil(),
                needed
                    .filter(|&n| n <= crate::plan::MAX_RUNS as usize)
                    .map_or(String::new(), |n| format!(", or --max-runs {n}"))
            )
        }
    };
    vec![line]
}

/// `--dry-run`: what the plan called `name` would run and need, without
/// running or writing anything.
pub fn describe(name: &str, plan: &Plan, config: &RunSpec) -> String {
    use crate::size::format_size;
    let need = DiskNeed::of(plan, config);
    let per_case = u64::from(plan.runs) + u64::from(plan.warmup);
    let sizes: Vec<String> = need.files.iter().map(TestFile::describe).collect();
    let mut lines = vec![
        format!(
            "{}: {} cases x {} runs (+{} warm-up) = {} trials, each in its own process",
            name,
            plan.cases.len(),
            plan.runs,
            plan.warmup,
            plan.cases.len() as u64 * per_case
        ),
        format!(
            "  test files: {} ({} to generate in {})",
            if sizes.is_empty() {
                "none".to_string()
            } else {
                sizes.join(", ")
            },
            crate::plan::resources::format_wide(need.to_generate),
            need.dir.display()
        ),
        format!(
            "  largest file one write trial creates: {}",
            format_size(need.largest_write)
        ),
        format!(
            "  {}",
            config.statistics_or_default().rules_words(plan.runs)
        ),
    ];
    lines.extend(precision_forecast(config));
    let (timed, counted): (Vec<_>, Vec<_>) =
        plan.cases.iter().partition(|c| c.duration_s.is_some());
    if !counted.is_empty() {
        let volume: u128 = counted
            .iter()
            .map(|c| u128::from(bytes_per_pass(c)) * u128::from(passes(c)) * u128::from(per_case))
            .sum();
        let repeated = counted.iter().any(|c| passes(c) > 1);
        lines.push(format!(
            "  file bytes the trials pass over: {} in all{}",
            crate::plan::resources::format_wide(volume),
            if repeated {
                " (each thread that runs the whole workload, and each process, counted)"
            } else {
                ""
            }
        ));
    }
    if !timed.is_empty() {
        let seconds: u64 = timed
            .iter()
            .map(|c| u64::from(c.duration_s.unwrap_or(0)) * per_case)
            .sum();
        lines.push(format!(
            "  duration-bounded trials: {seconds} s of main loops in all"
        ));
    }
    lines.push(match need.available {
        Some(free) => format!(
            "  disk: needs {} at its peak; {} free",
            crate::plan::resources::format_wide(need.total()),
            format_size(free)
        ),
        None => "  disk: free space unknown".to_string(),
    });
    let estimate = Estimate::of(plan, config.statistics_or_default().precision.as_ref());
    let generate = need.to_generate as f64 / ASSUMED_DEVICE_BYTES_PER_S;
    let rounds = match config.statistics_or_default().precision {
        Some(p) if estimate.rounds_s > 0.0 => format!(
            "; {} of them the rounds --precision {}% may add (up to {} runs per case{})",
            format_duration(estimate.rounds_s),
            {
                let pct = p.target * 100.0;
                if (pct - pct.round()).abs() < 1e-9 {
                    format!("{pct:.0}")
                } else {
                    format!("{pct}")
                }
            },
            p.max_runs,
            match p.max_time_s {
                Some(t) if estimate.budget_bound =>
                    format!(", cut to --max-time {}", format_duration(t)),
                _ => String::new(),
            }
        ),
        _ => String::new(),
    };
    let generating = if generate > 0.0 {
        format!(", and {} generating test files", format_duration(generate))
    } else {
        String::new()
    };
    lines.push(format!(
        "  estimated time: about {} ({} of trials{rounds}{generating}; assuming {} MB/s and {}k random requests/s from the device, {} MB/s from the page \
         cache and {} ms per trial; the progress bar's estimate, from measured trials, replaces it)",
        format_duration(estimated_run_seconds(plan, config)),
        format_duration(estimate.total_s()),
        ASSUMED_DEVICE_BYTES_PER_S / 1e6,
        ASSUMED_DEVICE_REQUESTS_PER_S / 1e3,
        ASSUMED_CACHED_BYTES_PER_S / 1e6,
        ASSUMED_SECONDS_PER_TRIAL * 1e3,
    ));
    lines.join("\n")
}

/// The seconds the estimate of [`describe`] says a run of `plan` takes:
/// its trials, the rounds its precision rule may add, and generating its
/// test files.
pub fn estimated_run_seconds(plan: &Plan, config: &RunSpec) -> f64 {
    let need = DiskNeed::of(plan, config);
    let estimate = Estimate::of(plan, config.statistics_or_default().precision.as_ref());
    estimate.total_s() + need.to_generate as f64 / ASSUMED_DEVICE_BYTES_PER_S
}

/// The dry run of several plans (`reproduce all --dry-run`) ends with
/// their total: plans, trials and the estimated time, on the same
/// assumptions as each plan's.
pub fn describe_total(plans: &[&Plan]) -> String {
    let trials: u64 = plans
        .iter()
        .map(|p| p.cases.len() as u64 * u64::from(p.runs + p.warmup))
        .sum();
    let seconds: f64 = plans.iter().map(|p| estimated_seconds(p)).sum();
    format!(
        "total: {} plans, {trials} trials, estimated time about {}",
        plans.len(),
        format_duration(seconds)
    )
}

/// One line per case: its number, method and group, as the run labels them.
pub fn case_lines(plan: &Plan) -> Vec<String> {
    plan.cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "  case {}: {} · {}",
                i + 1,
                c.method_label(),
                c.group_label()
            )
        })
        .collect()
}

/// Bytes per second the estimate assumes a file is read or written at on
/// the device (cold reads, synced writes, the read that warms a cache).
/// Not measured here: a round figure near what this project's development
/// VM gave (64 MiB cold sequential reads, 0.5-1 GB/s).
const ASSUMED_DEVICE_BYTES_PER_S: f64 = 300e6;
/// Requests per second the estimate assumes for cold random blocks (the
/// development VM: 16,384 cold random 4 KiB reads in 1.8 s under load).
const ASSUMED_DEVICE_REQUESTS_PER_S: f64 = 20e3;
/// Bytes per second the estimate assumes for bytes in the page cache.
const ASSUMED_CACHED_BYTES_PER_S: f64 = 2e9;
/// Seconds the estimate assumes each trial costs besides its bytes (the
/// child process, residency checks, eviction).
const ASSUMED_SECONDS_PER_TRIAL: f64 = 0.05;

/// One trial of `case` at the assumed rates: the cache preparation (a warm
/// cache is evicted, then read whole from the device), the main loop over
/// the bytes it passes (or its duration), a sync, the read-back of a
/// written file, and a fixed cost.
fn trial_seconds(c: &Case) -> f64 {
    let device = |bytes: u64| bytes as f64 / ASSUMED_DEVICE_BYTES_PER_S;
    let cached = |bytes: u64| bytes as f64 / ASSUMED_CACHED_BYTES_PER_S;
    let bytes = bytes_per_pass(c) * passes(c);
    let prepare = match c.cache {
        crate::plan::CacheState::Warm => device(c.file_size),
        _ => 0.0,
    };
    let main = match c.duration_s {
        Some(s) => f64::from(s),
        None if c.method.writes() => {
            let synced = c.sync.is_some_and(|s| s != crate::method::SyncPolicy::None);
            cached(bytes) + if synced { device(bytes) } else { 0.0 } + cached(c.file_size)
        }
        None if c.cache == crate::plan::CacheState::Cold => {
            let requests = (requests_per_pass(c) * passes(c)) as f64;
            let random = c.pattern != crate::pattern::Pattern::Seq || c.trace.is_some();
            let waits = if random {
                requests / ASSUMED_DEVICE_REQUESTS_PER_S
            } else {
                0.0
            };
            let throttled = c
                .device_rate
                .map_or(0.0, |r| bytes as f64 / r.bytes_per_s as f64);
            device(bytes).max(waits).max(throttled)
        }
        None => cached(bytes),
    };
    ASSUMED_SECONDS_PER_TRIAL + prepare + main.max(paced_seconds(c))
}

/// The least time a paced case's loop takes (`--rate`, `--think-time`):
/// each operation after the first waits an interval or a think time.
fn paced_seconds(c: &Case) -> f64 {
    let Some(pace) = c.pace else {
        return 0.0;
    };
    let waits = requests_per_pass(c).saturating_sub(1) as f64;
    let interval = pace.rate.map_or(0, |r| r.interval_ns(c.block_size));
    let gap = interval.max(pace.think_ns.unwrap_or(0));
    waits * gap as f64 / 1e9
}

/// The plan's planned trials at the assumed rates ([`trial_seconds`] for
/// each of a case's runs and warm-ups).
pub fn estimated_seconds(plan: &Plan) -> f64 {
    let trials = f64::from(plan.runs + plan.warmup);
    plan.cases.iter().map(|c| trials * trial_seconds(c)).sum()
}

/// The time of the trials the plan may run, at the assumed rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The planned trials ([`estimated_seconds`]).
    pub planned_s: f64,
    /// The rounds the precision rule may add, up to `--max-runs` runs per
    /// case, cut to what `--max-time` leaves after the planned trials (and
    /// the round under way when it runs out); 0 without `--precision`.
    pub rounds_s: f64,
    /// Whether `--max-time` cut the rounds (the rule then stops there).
    pub budget_bound: bool,
}

impl Estimate {
    /// The planned trials and every round the precision rule may add: the
    /// run's length when some group stays short of the target, as the main
    /// job's cold pairs do (a run whose groups all reach it early is shorter).
    pub fn of(plan: &Plan, precision: Option<&crate::plan::precision::Precision>) -> Estimate {
        let planned_s = estimated_seconds(plan);
        let Some(p) = precision else {
            return Estimate {
                planned_s,
                rounds_s: 0.0,
                budget_bound: false,
            };
        };
        let extra_runs = f64::from(p.max_runs.saturating_sub(plan.runs));
        let all_rounds: f64 = plan
            .cases
            .iter()
            .map(|c| extra_runs * trial_seconds(c))
            .sum();
        // A round that starts before --max-time runs to its end: the last
        // group's round past the budget, when there is room for rounds.
        let last_round: f64 = plan.groups().last().map_or(0.0, |g| {
            g.iter().map(|&i| trial_seconds(&plan.cases[i])).sum()
        });
        let room = p.max_time_s.map(|t| (t - planned_s).max(0.0)).map(|room| {
            if room > 0.0 {
                room + last_round
            } else {
                0.0
            }
        });
        let rounds_s = room.map_or(all_rounds, |room| all_rounds.min(room));
        Estimate {
            planned_s,
            rounds_s,
            budget_bound: room.is_some_and(|room| room < all_rounds),
        }
    }

    /// The planned trials and the rounds.
    pub fn total_s(&self) -> f64 {
        self.planned_s + self.rounds_s
    }
}

/// `45 s`, `3 min 20 s`, `2 h 05 min`.
pub fn format_duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..=59 => format!("{} s", s.max(1)),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::MethodKind;
    use crate::pattern::Pattern;
    use crate::plan::{CacheState, ThreadMode, Threads};
    use crate::workload::WorkloadKind;

    #[test]
    fn a_trial_passes_over_its_file_once_per_replicate_thread_and_process() {
        let one = crate::studies::read_case(
            MethodKind::Read,
            Pattern::Seq,
            4096,
            1 << 20,
            WorkloadKind::Touch,
            CacheState::Warm,
        );
        let with = |count, mode, procs| Case {
            threads: Some(Threads { count, mode }),
            procs,
            ..one.clone()
        };
        assert_eq!(passes(&one), 1);
        assert_eq!(passes(&with(10, ThreadMode::Split, None)), 1);
        assert_eq!(passes(&with(10, ThreadMode::Replicate, None)), 10);
        assert_eq!(passes(&with(4, ThreadMode::Split, Some(3))), 3);
        assert_eq!(passes(&with(4, ThreadMode::Replicate, Some(3))), 12);
    }

    #[test]
    fn the_estimate_counts_the_rounds_the_precision_rule_may_add() {
        use crate::plan::precision::Precision;
        let case = Case::new(
            MethodKind::Read,
            Pattern::Seq,
            16 << 10,
            1 << 20,
            WorkloadKind::Touch,
            CacheState::AsIs,
        );
        let plan = Plan {
            cases: vec![
                case.clone(),
                Case {
                    method: MethodKind::Mmap,
                    ..case
                },
            ],
            runs: 4,
            warmup: 1,
            order: crate::plan::OrderPolicy::Alternating,
            metric: crate::plan::Metric::Total,
            seed: 1,
        };
        let per_trial = estimated_seconds(&plan) / 10.0;
        let none = Estimate::of(&plan, None);
        assert_eq!(none.rounds_s, 0.0);
        assert!((none.total_s() - 10.0 * per_trial).abs() < 1e-9);
        // Up to 20 runs: 16 more per case, no warm-up.
        let mut p = Precision {
            target: 0.05,
            max_runs: 20,
            max_time_s: None,
            until_decided: false,
        };
        let all = Estimate::of(&plan, Some(&p));
        assert!((all.rounds_s - 32.0 * per_trial).abs() < 1e-9);
        assert!(!all.budget_bound);
        // --max-time cuts them to what the planned trials leave, and the
        // round under way then (one trial of each case of the last group).
        p.max_time_s = Some(none.planned_s + 5.0 * per_trial);
        let cut = Estimate::of(&plan, Some(&p));
        assert!(cut.budget_bound);
        assert!((cut.total_s() - (p.max_time_s.unwrap() + 2.0 * per_trial)).abs() < 1e-9);
        // A budget the planned trials already spend adds nothing.
        p.max_time_s = Some(1e-3);
        assert_eq!(Estimate::of(&plan, Some(&p)).rounds_s, 0.0);
    }
}
