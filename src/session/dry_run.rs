//! What a plan would need before it runs: the test files it reads (and
//! which of them must still be generated), the disk space at its peak, the
//! bytes its trials pass over. `--dry-run` prints it; a fresh session refuses
//! a plan the disk cannot hold ([`check_disk_space`]).
use std::path::PathBuf;

use super::estimate::{self, bytes_per_pass, passes};
pub use super::estimate::{estimated_seconds, format_duration};
use super::RunSpec;
use crate::error::Result;
use crate::files::image;
use crate::plan::Plan;

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
        // A trial repeating its pass to a shortest time makes as many passes
        // as fit in it, which only the run finds out.
        let at_least = counted.iter().any(|c| c.min_trial_ns.is_some());
        lines.push(format!(
            "  file bytes the trials pass over: {}{} in all{}{}",
            if at_least { "at least " } else { "" },
            crate::plan::resources::format_wide(volume),
            if repeated {
                " (each thread that runs the whole workload, and each process, counted)"
            } else {
                ""
            },
            if at_least {
                " (warm trials repeat their pass to their shortest time)"
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
    let (estimate, measured) = estimate::of_run(plan, config);
    let precision = config.statistics_or_default().precision;
    lines.extend(estimate::estimate_lines(
        plan,
        precision.as_ref(),
        &estimate,
        &measured,
        need.to_generate,
    ));
    lines.join("\n")
}

/// The seconds the estimate of [`describe`] says a run of `plan` takes:
/// its trials, the rounds its rules are expected to add, and generating
/// its test files.
pub fn estimated_run_seconds(plan: &Plan, config: &RunSpec) -> f64 {
    let need = DiskNeed::of(plan, config);
    estimate::of_run(plan, config).0.total_s() + estimate::generating_seconds(need.to_generate)
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
