//! What a plan would need before it runs: the test files it reads (and
//! which of them must still be generated), the disk space at its peak, the
//! bytes its trials pass over. `--dry-run` prints it; a fresh session refuses
//! a plan the disk cannot hold ([`check_disk_space`]).
use std::path::PathBuf;

use super::SessionConfig;
use crate::error::Result;
use crate::files::image;
use crate::plan::{Case, Plan};

/// Refuses, before anything is generated, a plan whose test files do not
/// fit on the data directory's file system (files already there count as 0).
pub fn check_disk_space(plan: &Plan, config: &SessionConfig) -> Result<()> {
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
    fn of(plan: &Plan, config: &SessionConfig) -> DiskNeed {
        let dir = config.data_dir.clone();
        // The user's file (--file) is read as it is: nothing is generated.
        let mut sizes: Vec<u64> = plan
            .cases
            .iter()
            .filter(|c| !c.method.writes() || c.scale.is_some())
            .filter(|_| config.file.is_none())
            .map(|c| c.file_size)
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        let files: Vec<TestFile> = sizes
            .into_iter()
            .map(|size| TestFile::of(plan, size, config.seed, config.image))
            .collect();
        let to_generate = files
            .iter()
            .filter(|f| std::fs::metadata(dir.join(&f.name)).map_or(true, |m| m.len() != f.size))
            .map(|f| u128::from(f.size))
            .sum();
        let largest_write = plan
            .cases
            .iter()
            .filter(|c| c.method.writes())
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
            },
            None => TestFile {
                size,
                name: crate::files::dataset::generated_name(size, seed),
                image: None,
            },
        }
    }

    /// `4 GiB`, or `3.75 MiB (1280x1024 PPM image, NAME)`.
    fn describe(&self) -> String {
        let size = crate::size::format_size(self.size);
        match self.image {
            Some((w, h)) => format!("{size} ({w}x{h} PPM image, {})", self.name),
            None => size,
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

/// `--dry-run`: what the plan called `name` would run and need, without
/// running or writing anything.
pub fn describe(name: &str, plan: &Plan, config: &SessionConfig) -> String {
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
    ];
    let (timed, counted): (Vec<_>, Vec<_>) =
        plan.cases.iter().partition(|c| c.duration_s.is_some());
    if !counted.is_empty() {
        let volume: u128 = counted
            .iter()
            .map(|c| u128::from(c.file_size) * u128::from(passes(c)) * u128::from(per_case))
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
    lines.push(format!(
        "  estimated time: about {} (assuming {} MB/s and {}k random requests/s from the device, \
         {} MB/s from the page cache and {} ms per trial; the progress bar's estimate, from \
         measured trials, replaces it)",
        format_duration(estimated_seconds(plan)),
        ASSUMED_DEVICE_BYTES_PER_S / 1e6,
        ASSUMED_DEVICE_REQUESTS_PER_S / 1e3,
        ASSUMED_CACHED_BYTES_PER_S / 1e6,
        ASSUMED_SECONDS_PER_TRIAL * 1e3,
    ));
    lines.join("\n")
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

/// The plan's running time at the assumed rates: per trial, the cache
/// preparation (a warm cache is evicted, then read whole from the device),
/// the main loop over the bytes it passes (or its duration), a sync, the
/// read-back of a written file, and a fixed cost.
pub fn estimated_seconds(plan: &Plan) -> f64 {
    let trials = f64::from(plan.runs + plan.warmup);
    let device = |bytes: u64| bytes as f64 / ASSUMED_DEVICE_BYTES_PER_S;
    let cached = |bytes: u64| bytes as f64 / ASSUMED_CACHED_BYTES_PER_S;
    plan.cases
        .iter()
        .map(|c| {
            let bytes = c.file_size * passes(c);
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
                    let requests = bytes.div_ceil(c.block_size.max(1)) as f64;
                    let random = c.pattern != crate::pattern::Pattern::Seq;
                    let waits = if random {
                        requests / ASSUMED_DEVICE_REQUESTS_PER_S
                    } else {
                        0.0
                    };
                    device(bytes).max(waits)
                }
                None => cached(bytes),
            };
            trials * (ASSUMED_SECONDS_PER_TRIAL + prepare + main)
        })
        .sum()
}

/// `45 s`, `3 min 20 s`, `2 h 05 min`.
fn format_duration(seconds: f64) -> String {
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
}
