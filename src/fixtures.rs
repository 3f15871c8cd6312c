//! Crate-wide test fixtures: hand-built cases, samples and results for the
//! unit tests of every layer. No stats function is called to build them.
use std::collections::BTreeMap;

use crate::measure::environment::Environment;
use crate::measure::rusage::Counters;
use crate::method::MethodKind;
use crate::pattern::Pattern;
use crate::plan::{CacheState, Case, Metric, OrderPolicy};
use crate::results::{
    CaseResult, CaseSummary, ChildReport, ComparisonResult, PerMib, RunResults, Sample, Settings,
    TrialFailure,
};
use crate::stats::{RatioEstimate, Summary, Verdict};

/// A summary with the given mean, sd and CI; the other fields follow from them.
pub(crate) fn summary(mean: f64, sd: f64, ci95: Option<(f64, f64)>) -> Summary {
    Summary {
        n: 3,
        mean,
        sd,
        median: mean,
        min: mean - sd,
        max: mean + sd,
        ci95,
        outliers: Vec::new(),
    }
}

/// A seq 16 KiB sum, warm case over a 1 GiB file.
pub(crate) fn case(method: MethodKind) -> Case {
    use crate::workload::{FillContent, WorkloadKind};
    let writes = method.writes();
    let workload = if writes {
        WorkloadKind::Fill
    } else {
        WorkloadKind::Sum
    };
    let mut case = Case::new(
        method,
        Pattern::Seq,
        16 << 10,
        1 << 30,
        workload,
        CacheState::Warm,
    );
    case.seed = 7;
    if writes {
        case.sync = Some(crate::method::SyncPolicy::None);
        case.target = Some(crate::plan::Target::Fresh);
        case.fill = Some(FillContent::Pattern);
    }
    if method == MethodKind::MmapWrite {
        case.size_with = Some(crate::method::SizeWith::Truncate);
    }
    case
}

/// Sets a summary's mean time and its throughput with it: the same bytes a
/// trial, as in a real case.
pub(crate) fn retime(s: &mut CaseSummary, time_ns: f64) {
    let bytes = s.throughput_bps.mean * s.time_ns.mean / 1e9;
    s.time_ns.mean = time_ns;
    s.throughput_bps.mean = bytes / (time_ns / 1e9);
}

/// A case summary: 2 GB/s (CI 1.9 to 2.1 GB/s), 0.5 s, with the given per-MiB counters.
pub(crate) fn case_summary(per_mib: PerMib, read_amplification: Option<f64>) -> CaseSummary {
    CaseSummary {
        runs: 3,
        time_ns: summary(5.0e8, 1.0e7, Some((4.9e8, 5.1e8))),
        loop_ns: summary(4.9e8, 1.0e7, Some((4.8e8, 5.0e8))),
        setup_ns: summary(2.5e5, 1.0e4, Some((2.4e5, 2.6e5))),
        teardown_ns: summary(1.0e5, 1.0e4, Some((0.9e5, 1.1e5))),
        sync_ns: Some(summary(0.0, 0.0, Some((0.0, 0.0)))),
        throughput_bps: summary(2.0e9, 5.0e7, Some((1.9e9, 2.1e9))),
        user_ns: summary(3.0e8, 1.0e7, Some((2.9e8, 3.1e8))),
        sys_ns: summary(1.5e8, 1.0e7, Some((1.4e8, 1.6e8))),
        per_mib,
        read_amplification,
        device_reads_per_mib: None,
        device_read_request_bytes: None,
        residency_before: 0.9996,
        residency_after: 1.0,
        latency: None,
        threads: None,
        procs: None,
        ops_per_s: None,
        footprint: None,
        timeline: Vec::new(),
        read_bytes_source: None,
        device_wide_read_amplification: None,
        profile: None,
        profile_cost: None,
    }
}

/// A profile of 3 trials of 1000 samples each at 997 Hz, kernel and user,
/// with these mean shares (CI ±0.02), and one folded stack per category.
pub(crate) fn profile_summary(
    shares: &[(crate::measure::profile::Category, f64)],
) -> crate::results::ProfileSummary {
    use crate::results::{CategoryShare, ProfileSummary};
    let total = 3000.0;
    ProfileSummary {
        mode: crate::measure::profile::ProfileMode::KernelUser,
        frequency_hz: 997,
        trials: 3,
        samples: 3000,
        samples_per_trial: summary(1000.0, 5.0, Some((990.0, 1010.0))),
        samples_per_second: summary(996.0, 3.0, Some((990.0, 1002.0))),
        lost: 0,
        throttled: 0,
        unnamed: 0,
        drain_cpu_share: summary(0.001, 0.0002, Some((0.0008, 0.0012))),
        kernel_share: summary(
            shares
                .iter()
                .filter(|(c, _)| c.in_kernel())
                .map(|s| s.1)
                .sum(),
            0.01,
            None,
        ),
        shares: shares
            .iter()
            .map(|&(category, share)| CategoryShare {
                category,
                samples: (share * total).round() as u64,
                share: summary(share, 0.01, Some((share - 0.02, share + 0.02))),
            })
            .collect(),
        stacks: shares
            .iter()
            .map(|&(category, share)| {
                (
                    format!("faultline::trial::run_trial;{}_[k]", category.id()),
                    (share * total).round() as u64,
                )
            })
            .collect(),
    }
}

/// [`results`] profiled: read spends 60% copying to user, 15% in syscall
/// entry and exit, 10% in the page cache and 15% elsewhere in the kernel;
/// mmap 55% in user memcpy, 30% in page faults and 15% elsewhere.
pub(crate) fn profiled_results() -> RunResults {
    use crate::measure::profile::{Category, ProfileMode, ProfileRequest};
    let mut results = results();
    results.settings.profile = Some(crate::results::ProfileSettings {
        request: ProfileRequest {
            frequency_hz: 997,
            mode: ProfileMode::KernelUser,
        },
        note: None,
        control_trials: 0,
    });
    let read = [
        (Category::CopyToUser, 0.60),
        (Category::Syscall, 0.15),
        (Category::OtherKernel, 0.15),
        (Category::PageCache, 0.10),
    ];
    let mmap = [
        (Category::UserMemcpy, 0.55),
        (Category::PageFault, 0.30),
        (Category::OtherKernel, 0.15),
    ];
    for (case, shares) in [(0, &read[..]), (1, &mmap[..])] {
        results.cases[case].summary.as_mut().unwrap().profile =
            Some(Box::new(profile_summary(shares)));
    }
    results
}

/// Per-MiB counters of a warm read() with 16 KiB blocks.
pub(crate) fn read_per_mib() -> PerMib {
    PerMib {
        minflt: 0.0,
        majflt: 0.0,
        syscalls: 64.0,
        sys_ms: 0.31,
        user_ms: 0.2,
        nvcsw: 0.0,
        nivcsw: 0.0,
    }
}

/// Per-MiB counters of a warm mmap: one fault per 64 KiB, no syscalls.
pub(crate) fn mmap_per_mib() -> PerMib {
    PerMib {
        minflt: 16.0,
        majflt: 0.0,
        syscalls: 0.0,
        sys_ms: 0.05,
        user_ms: 0.2,
        nvcsw: 0.0,
        nivcsw: 0.0,
    }
}

/// One sample of `case`, run `run`.
pub(crate) fn sample(case: usize, run: u32) -> Sample {
    let mut vmstat = BTreeMap::new();
    vmstat.insert("pgfault".to_string(), 16_400);
    vmstat.insert("pgpgin".to_string(), 0);
    let child = ChildReport {
        wall_ns: 500_000_000,
        setup_ns: 250_000,
        teardown_ns: 100_000,
        rusage: Counters {
            user_ns: 300_000_000,
            sys_ns: 150_000_000,
            minflt: 16_384,
            majflt: 0,
            nvcsw: 1,
            nivcsw: 2,
            inblock: 0,
            oublock: 0,
        },
        max_rss_kib: 2048,
        vmstat,
        bytes: 1 << 30,
        syscalls: 65_536,
        ops: 65_536,
        checksum: 0xdead_beef,
        ..Default::default()
    };
    Sample {
        sequence: u64::from(run) * 2 + case as u64,
        residency_source: "mincore".to_string(),
        cache_prepared_by: "evict+seq-read".to_string(),
        ..Sample::new(case, run, child)
    }
}

/// Three cases in one group: read (baseline, 3 samples), mmap (faster,
/// 3 samples) and mmap-copy (no samples, 2 failures); one comparison.
pub(crate) fn results() -> RunResults {
    // read spends 0.31 ms/MiB in the kernel and mmap 0.05 over 1 GiB: the
    // 0.27 s of extra sys time is more than the 0.15 s read is slower by.
    let mut read_summary = case_summary(read_per_mib(), Some(0.0));
    read_summary.sys_ns = summary(3.2e8, 1.0e7, Some((3.1e8, 3.3e8)));
    let read = CaseResult {
        id: 0,
        case: case(MethodKind::Read),
        label: "read".to_string(),
        summary: Some(read_summary),
        samples: (0..3).map(|r| sample(0, r)).collect(),
        interference: None,
    };
    let mut mmap_summary = case_summary(mmap_per_mib(), Some(0.0));
    mmap_summary.throughput_bps = summary(2.84e9, 4.0e7, None);
    mmap_summary.time_ns.outliers = vec![2];
    mmap_summary.time_ns.mean = 3.52e8;
    mmap_summary.sys_ns = summary(0.5e8, 0.5e7, Some((0.45e8, 0.55e8)));
    let mmap = CaseResult {
        id: 1,
        case: case(MethodKind::Mmap),
        label: "mmap".to_string(),
        summary: Some(mmap_summary),
        samples: (0..3).map(|r| sample(1, r)).collect(),
        interference: None,
    };
    let copy = CaseResult {
        id: 2,
        case: case(MethodKind::MmapCopy),
        label: "mmap-copy".to_string(),
        summary: None,
        samples: Vec::new(),
        interference: None,
    };
    let failure = |run| TrialFailure {
        case: 2,
        run,
        warmup: false,
        reason: "killed by SIGBUS".to_string(),
        attempt: 0,
        profile_control: false,
    };
    RunResults {
        environment: Environment::default(),
        command_line: vec!["faultline".to_string(), "run".to_string()],
        settings: Settings {
            profile: None,
            file: "/tmp/data|file".into(),
            generated: true,
            scratch_dir: None,
            runs: 3,
            warmup: 1,
            order: OrderPolicy::Alternating,
            metric: Metric::Total,
            drop_caches: false,
            seed: 7,
            reproduction: None,
            interference: None,
            statistics: Default::default(),
        },
        cases: vec![read, mmap, copy],
        comparisons: vec![ComparisonResult {
            group: "seq 16 KiB sum, warm".to_string(),
            baseline: 0,
            other: 1,
            throughput_ratio: RatioEstimate {
                ratio: 1.42,
                ci95_low: 1.38,
                ci95_high: 1.46,
                pairs: 3,
            },
            verdict: Verdict::Faster,
            interfered_share: 0.0,
            p_value: Some(0.001),
            p_adjusted: Some(0.001),
        }],
        failures: vec![failure(0), failure(1)],
        warnings: vec!["cold cache not reached in run 2 of mmap".to_string()],
        complete: true,
        statistics: Default::default(),
        claims: Vec::new(),
    }
}

/// The results of a run of `cases` before any trial: every case, no
/// samples (what a preset's tables look like with nothing measured).
pub(crate) fn results_of(cases: &[Case]) -> RunResults {
    RunResults {
        cases: cases
            .iter()
            .enumerate()
            .map(|(id, c)| CaseResult {
                id,
                case: c.clone(),
                label: c.method_label(),
                summary: None,
                samples: Vec::new(),
                interference: None,
            })
            .collect(),
        comparisons: Vec::new(),
        failures: Vec::new(),
        ..results()
    }
}

/// A file of `size` bytes (a multiple of 1 MiB) named `data` in `dir`,
/// written, fsync'd and dropped from the page cache.
pub(crate) fn uncached_file(dir: &std::path::Path, size: usize) -> std::path::PathBuf {
    use std::io::Write;
    let path = dir.join("data");
    let mut f = std::fs::File::create(&path).unwrap();
    let chunk: Vec<u8> = (0..1 << 20).map(|i| (i * 7 + 3) as u8).collect();
    for _ in 0..size >> 20 {
        f.write_all(&chunk).unwrap();
    }
    f.sync_all().unwrap();
    crate::runner::cache::evict(&f).unwrap();
    path
}

/// A temporary directory under /var/tmp (more often on a disk than /tmp).
pub(crate) fn disk_tempdir() -> tempfile::TempDir {
    tempfile::tempdir_in("/var/tmp")
        .or_else(|_| tempfile::tempdir())
        .unwrap()
}

/// A [`disk_tempdir`] whose file system sits on a block device (not
/// tmpfs), for a test of storage counters; where there is none, the test
/// fails saying so (it never returns early and passes).
pub(crate) fn block_device_tempdir() -> tempfile::TempDir {
    let dir = disk_tempdir();
    assert!(
        crate::measure::blockdev::disk_stat_path(dir.path()).is_some(),
        "this test reads a file from a block device, and {} is not on one (tmpfs, overlay?): \
         run it where /var/tmp (or TMPDIR) is on a disk",
        dir.path().display()
    );
    dir
}

/// `setup`'s result in a test of io_uring: where the kernel (or a seccomp
/// filter) refuses io_uring, the test fails saying so, never passes unrun.
pub(crate) fn require_uring<T, E: std::fmt::Display>(setup: Result<T, E>) -> T {
    setup.unwrap_or_else(|e| {
        panic!("this test needs io_uring, which this kernel or sandbox refuses: {e}")
    })
}

/// Tests that measure this process's children or the machine take this
/// lock, so that the harness's other threads do not run theirs meanwhile.
pub(crate) fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Seeded standard normal deviates (Box–Muller), for the simulations of the
/// statistics' tests.
pub(crate) struct Normal(rand_chacha::ChaCha8Rng);
impl Normal {
    pub(crate) fn new(seed: u64) -> Normal {
        use rand::SeedableRng;
        Normal(rand_chacha::ChaCha8Rng::seed_from_u64(seed))
    }
    pub(crate) fn next(&mut self) -> f64 {
        use rand::RngExt;
        let u1: f64 = self.0.random::<f64>().max(f64::MIN_POSITIVE);
        let u2: f64 = self.0.random();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}
