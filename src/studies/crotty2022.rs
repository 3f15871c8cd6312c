//! crotty2022: random 4 KiB reads, and a sequential scan, by N threads over
//! a file larger than the memory the page cache may use, as a per-second
//! timeline (Crotty, Leis, Pavlo, "Are You Sure You Want to Use MMAP in Your
//! Database Management System?", CIDR 2022; benchmark viktorleis/mmapbench).
//!
//! Each trial runs for a fixed time ([`crate::trial::timed`]) in a cgroup whose
//! memory limit is the page-cache budget ([`crate::plan::memory_budget`]), from a
//! cold cache, so the timeline shows the cache filling and what each method
//! does once it is full. Not part of `reproduce all`: it needs a memory
//! budget (root, or a `--size` larger than memory) and takes minutes.
use super::{
    ratio_cell, ratio_header, read_case, summary_of, Choices, Preset, PresetOption, Scope, Table,
    COMPARISON_NOTE,
};
use crate::error::{Error, Result};
use crate::measure::timeline::{filled_at, TimelinePoint};
use crate::method::{Advice, IoOptions, MethodKind};
use crate::pattern::Pattern;
use crate::plan::memory_budget::{self, BudgetKind, MemoryBudget, Selection};
use crate::plan::CacheState;
use crate::plan::{Case, Metric, OrderPolicy, Plan};
use crate::plan::{ThreadMode, Threads};
use crate::report::plot::{series_plot, Axis, Plot, Series, SeriesStyle};
use crate::results::RunResults;
use crate::stats::effect::{Published, Size};
use crate::studies::claims::{Claim, Expect};
use crate::workload::WorkloadKind;

/// The reads' size: one 4 KiB page.
const BLOCK: u64 = 4 << 10;
/// io_uring reads in flight per thread.
const URING_DEPTH: u32 = 8;
/// Published: fio's random 4 KiB reads (psync, O_DIRECT), M reads/s.
const FIO_M: f64 = 0.89;
/// Published: mmap with MADV_RANDOM after memory filled, M reads/s.
const MMAP_AFTER_M: f64 = 0.42;
/// Published: when memory filled, s, and how long mmap stalled.
const FILLED_S: f64 = 27.0;
const STALL_S: f64 = 5.0;
/// Published: mmap without MADV_RANDOM, M reads/s (range).
const MMAP_NORMAL_M: (f64, f64) = (0.02, 0.04);
/// The legend's note on where the published numbers come from.
const PUBLISHED_ON: &str = "100 threads, EPYC 7713, NVMe, 100 GB RAM";
/// The sequential scan's reads: 1 MiB, fio's block in the study's scan.
const SCAN_BLOCK: u64 = 1 << 20;
/// Published: the sequential scan after memory filled, GiB/s: mmap's range,
/// and fio's (libaio, O_DIRECT, 1 MiB) on one SSD.
const SCAN_MMAP_GIB: (f64, f64) = (2.3, 2.7);
const SCAN_FIO_GIB: f64 = 6.5;
/// Published: fio's sequential scan over ten SSDs, GiB/s.
const SCAN_FIO_TEN_GIB: f64 = 57.0;
/// The study's scan: 20 threads over 128 MiB chunks.
const SCAN_THREADS: u32 = 20;
const SCAN_CHUNK: u64 = 128 << 20;

/// The preset, with its sizes resolved for this machine by [`Crotty2022::resolve`].
#[derive(Clone, Debug, Default)]
pub struct Crotty2022 {
    /// Budget, file size, threads and duration; `None`: the nominal quick
    /// sizes under a cgroup v1 budget (for listing and tests).
    pub setup: Option<Setup>,
}

/// What a reproduction on this machine uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The page-cache budget and how it is enforced.
    pub budget: MemoryBudget,
    /// The file the threads read.
    pub file_size: u64,
    /// Reading threads per trial.
    pub threads: u32,
    /// Seconds per trial.
    pub duration_s: u32,
}

/// (budget, file size, seconds, runs) at a scope.
fn nominal(scope: Scope) -> (u64, u64, u32, u32) {
    let budget = scope.size(128 << 20, 1 << 30, memory_budget::MIN_RUN_BUDGET);
    let file = scope.size(1 << 30, 20 << 30, 64 << 20);
    let seconds = if scope.scale_down > 1 {
        3
    } else if scope.full {
        60
    } else {
        10
    };
    (budget, file, seconds, scope.runs(3, 3))
}

impl Crotty2022 {
    /// Resolves the sizes on this machine: the budget ([`memory_budget::select`]),
    /// the file size, threads and duration. Fails with one line when no
    /// budget can be had.
    pub fn resolve(scope: Scope, choices: &Choices) -> Result<Crotty2022> {
        let (budget, file, seconds, _) = nominal(scope);
        if let Some(size) = choices.size.filter(|s| !s.is_multiple_of(BLOCK)) {
            return Err(Error::Plan(format!(
                "--size {size} B is not a whole number of {} pages; crotty2022 reads whole pages",
                crate::size::format_size(BLOCK)
            )));
        }
        let Selection { budget, file_size } =
            memory_budget::select(&memory_budget::probe(), budget, file, choices.size)?;
        let threads = choices
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get() as u32));
        Ok(Crotty2022 {
            setup: Some(Setup {
                budget,
                file_size,
                threads,
                duration_s: choices.duration_s.unwrap_or(seconds),
            }),
        })
    }

    fn setup_at(&self, scope: Scope) -> Setup {
        self.setup.clone().unwrap_or_else(|| {
            let (budget, file, seconds, _) = nominal(scope);
            Setup {
                budget: MemoryBudget {
                    kind: BudgetKind::CgroupV1MemoryLimit,
                    limit_bytes: budget,
                },
                file_size: file,
                threads: 2,
                duration_s: seconds,
            }
        })
    }
}

/// The compared methods, in plan order; the first (O_DIRECT, fio's
/// baseline) is the baseline of the group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    Direct,
    Pread,
    Uring,
    MmapRandom,
    MmapNormal,
    MmapSequential,
    /// The sequential scan: O_DIRECT 1 MiB reads (fio's baseline).
    ScanDirect,
    /// The sequential scan: buffered 1 MiB pread.
    ScanPread,
    /// The sequential scan through the shared mapping.
    ScanMmap,
}

/// The sequential-scan experiment's ways; the first is its group's baseline.
const SCAN_WAYS: [Way; 3] = [Way::ScanDirect, Way::ScanPread, Way::ScanMmap];

const WAYS: [Way; 6] = [
    Way::Direct,
    Way::Pread,
    Way::Uring,
    Way::MmapRandom,
    Way::MmapNormal,
    Way::MmapSequential,
];

impl Way {
    /// Whether the study measured it: fio's O_DIRECT baseline and mmap
    /// with and without MADV_RANDOM; buffered pread and io_uring are
    /// faultline's additions.
    fn in_study(self) -> bool {
        !matches!(self, Way::Pread | Way::Uring | Way::ScanPread)
    }

    fn label(self) -> &'static str {
        match self {
            Way::Direct => "direct (O_DIRECT pread, as fio)",
            Way::Pread => "pread",
            Way::Uring => "uring",
            Way::MmapRandom => "mmap + MADV_RANDOM",
            Way::MmapNormal => "mmap (no advice)",
            Way::MmapSequential => "mmap + MADV_SEQUENTIAL",
            Way::ScanDirect => "direct (O_DIRECT 1 MiB reads, as fio)",
            Way::ScanPread => "pread (1 MiB)",
            Way::ScanMmap => "mmap",
        }
    }

    fn case(self, s: &Setup) -> Case {
        let method = match self {
            Way::Direct | Way::ScanDirect => MethodKind::Direct,
            Way::Pread | Way::ScanPread => MethodKind::Pread,
            Way::Uring => MethodKind::Uring,
            Way::MmapRandom | Way::MmapNormal | Way::MmapSequential | Way::ScanMmap => {
                MethodKind::Mmap
            }
        };
        // The scan: each worker of a timed trial reads its own contiguous
        // share of the file from its start, wrapping (crate::pattern::stream).
        let (pattern, block) = if SCAN_WAYS.contains(&self) {
            (Pattern::Seq, SCAN_BLOCK.min(s.file_size))
        } else {
            (Pattern::RandomReplace, BLOCK)
        };
        let mut case = read_case(
            method,
            pattern,
            block,
            s.file_size,
            WorkloadKind::Touch,
            CacheState::Cold,
        );
        match self {
            Way::MmapRandom => case.advice = Some(Advice::Random),
            Way::MmapSequential => case.advice = Some(Advice::Sequential),
            Way::Uring => {
                case.io = IoOptions {
                    depth: Some(URING_DEPTH),
                    registered: Some(false),
                    ..Default::default()
                }
            }
            _ => {}
        }
        case.threads = (s.threads >= 2).then_some(Threads {
            count: s.threads,
            mode: ThreadMode::Split,
        });
        case.duration_s = Some(s.duration_s);
        case.memory_budget = Some(s.budget);
        case
    }
}

/// The setup the results' cases were run with.
fn setup_of(cases: &[Case]) -> Option<Setup> {
    let c = cases.first()?;
    Some(Setup {
        budget: c.memory_budget?,
        file_size: c.file_size,
        threads: c.threads.map_or(1, |t| t.count),
        duration_s: c.duration_s?,
    })
}

fn cases_of(results: &RunResults) -> Vec<Case> {
    results.cases.iter().map(|c| c.case.clone()).collect()
}

/// The timelines of every sample of `case`.
fn timelines<'a>(results: &'a RunResults, case: &Case) -> Vec<&'a [TimelinePoint]> {
    results
        .cases
        .iter()
        .filter(|c| &c.case == case)
        .flat_map(|c| c.samples.iter().map(|s| s.child.timeline.as_slice()))
        .collect()
}

/// What one method's timelines show, averaged over its trials.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimelineFigures {
    /// Mean reads/s up to and including the second the budget filled (all
    /// seconds when it never did).
    pub before_fill: Option<f64>,
    /// Mean reads/s after the budget filled.
    pub after_fill: Option<f64>,
    /// Mean second the budget filled at, over the trials where it did.
    pub filled_at: Option<f64>,
    /// Highest TLB shootdowns/s of any second.
    pub peak_tlb_per_s: Option<f64>,
    /// Mean TLB shootdowns/s.
    pub tlb_per_s: Option<f64>,
    /// Mean major faults/s.
    pub major_faults_per_s: Option<f64>,
    /// Mean bytes/s read from the device.
    pub device_bytes_per_s: Option<f64>,
    /// Device bytes per read completed.
    pub device_bytes_per_read: Option<f64>,
}

fn mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// The figures of a set of timelines under a budget of `limit` bytes.
pub fn figures(timelines: &[&[TimelinePoint]], limit: u64) -> TimelineFigures {
    let all = || timelines.iter().flat_map(|t| t.iter());
    let mut before = Vec::new();
    let mut after = Vec::new();
    let mut fills = Vec::new();
    for t in timelines {
        let fill = filled_at(t, limit);
        if let Some(f) = fill {
            fills.push(f as f64);
        }
        for p in *t {
            if fill.is_none_or(|f| p.second <= f) {
                before.push(p.reads_per_s);
            } else {
                after.push(p.reads_per_s);
            }
        }
    }
    let reads: u64 = all().map(|p| p.reads).sum();
    let device: Option<f64> = all()
        .map(|p| p.device_read_bytes_per_s.map(|b| b * p.interval_s))
        .sum();
    TimelineFigures {
        before_fill: mean(before),
        after_fill: mean(after),
        filled_at: mean(fills),
        peak_tlb_per_s: all()
            .filter_map(|p| p.tlb_shootdowns_per_s)
            .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x)))),
        tlb_per_s: mean(all().filter_map(|p| p.tlb_shootdowns_per_s)),
        major_faults_per_s: mean(all().map(|p| p.major_faults_per_s)),
        device_bytes_per_s: mean(all().filter_map(|p| p.device_read_bytes_per_s)),
        device_bytes_per_read: device.filter(|_| reads > 0).map(|d| d / reads as f64),
    }
}

/// Mean reads/s per second over the trials: (second, mean).
fn mean_series(timelines: &[&[TimelinePoint]]) -> Vec<(u32, f64)> {
    let longest = timelines.iter().map(|t| t.len()).max().unwrap_or(0);
    (0..longest)
        .filter_map(|i| {
            let m = mean(
                timelines
                    .iter()
                    .filter_map(|t| t.get(i))
                    .map(|p| p.reads_per_s),
            )?;
            Some((i as u32 + 1, m))
        })
        .collect()
}

/// Reads/s as `12.3 k/s`, or `-`.
fn rate(x: Option<f64>) -> String {
    match x {
        Some(x) if x >= 1e6 => format!("{:.2} M/s", x / 1e6),
        Some(x) if x >= 1e3 => format!("{:.1} k/s", x / 1e3),
        Some(x) => format!("{x:.0} /s"),
        None => "-".into(),
    }
}

fn mib_per_s(x: Option<f64>) -> String {
    x.map_or("-".into(), |b| format!("{:.1} MiB/s", b / (1 << 20) as f64))
}

fn kib(x: Option<f64>) -> String {
    x.map_or("-".into(), |b| format!("{:.1} KiB", b / 1024.0))
}

/// Whole-trial reads/s of `case` (mean throughput over the main loop).
fn reads_per_s(results: &RunResults, case: &Case) -> Option<f64> {
    summary_of(results, case).map(|s| s.throughput_bps.mean / case.block_size as f64)
}

/// The sequential scan's measured table, when the results hold its cases.
fn scan_table(results: &RunResults, s: &Setup) -> Option<Table> {
    let base = Way::ScanDirect.case(s);
    summary_of(results, &base)?;
    let block = base.block_size as f64;
    let gib = |bytes_per_s: Option<f64>| {
        bytes_per_s.map_or("-".into(), |b| {
            format!("{:.2} GiB/s", b / (1u64 << 30) as f64)
        })
    };
    let rows = SCAN_WAYS
        .iter()
        .map(|w| {
            let case = w.case(s);
            let f = figures(&timelines(results, &case), s.budget.limit_bytes);
            vec![
                if w.in_study() {
                    w.label().to_string()
                } else {
                    format!("{} (not in the study)", w.label())
                },
                gib(summary_of(results, &case).map(|x| x.throughput_bps.mean)),
                if *w == Way::ScanDirect {
                    "baseline".into()
                } else {
                    ratio_cell(results, &base, &case)
                },
                gib(f.before_fill.map(|r| r * block)),
                gib(f.after_fill.map(|r| r * block)),
                f.filled_at.map_or("never".into(), |x| format!("{x:.1} s")),
                f.peak_tlb_per_s.map_or("-".into(), |x| format!("{x:.0}")),
                f.major_faults_per_s
                    .map_or("-".into(), |x| format!("{x:.0}")),
                mib_per_s(f.device_bytes_per_s),
            ]
        })
        .collect();
    Some(Table::new(
        &format!(
            "Measured: sequential scan, {} threads each over its own {} share of a {} file in 1 MiB reads, {} s per trial from a cold cache, budget: {}; \
             throughput relative to direct (O_DIRECT), {COMPARISON_NOTE}; published after memory filled: mmap {}–{} GiB/s, fio {SCAN_FIO_GIB} GiB/s (one SSD)",
            s.threads,
            crate::size::format_size(s.file_size / u64::from(s.threads.max(1))),
            crate::size::format_size(s.file_size),
            s.duration_s,
            s.budget,
            SCAN_MMAP_GIB.0,
            SCAN_MMAP_GIB.1
        ),
        &[
            "method",
            "throughput",
            &ratio_header("vs direct"),
            "before fill",
            "after fill",
            "filled at",
            "peak TLB/s",
            "major faults/s",
            "device",
        ],
        rows,
    ))
}

/// Mean of a /proc/vmstat delta over `case`'s trials (`None` without samples).
fn mean_vmstat(results: &RunResults, case: &Case, key: &str) -> Option<f64> {
    let values: Vec<f64> = results
        .cases
        .iter()
        .filter(|c| &c.case == case)
        .flat_map(|c| c.samples.iter())
        .filter_map(|s| s.child.vmstat.get(key).map(|&v| v as f64))
        .collect();
    mean(values)
}

/// What this machine cannot reproduce, as this run measured it: who
/// reclaimed (kswapd or the readers) and the TLB shootdowns, per mmap way.
fn evidence_table(results: &RunResults, s: &Setup) -> Table {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let count = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.0}"));
    let rows = [
        Way::MmapRandom,
        Way::MmapNormal,
        Way::ScanMmap,
        Way::ScanDirect,
    ]
    .iter()
    .map(|w| {
        let case = w.case(s);
        let f = figures(&timelines(results, &case), s.budget.limit_bytes);
        let kswapd = mean_vmstat(results, &case, "pgscan_kswapd");
        let direct = mean_vmstat(results, &case, "pgscan_direct");
        vec![
            format!(
                "{}{}",
                if SCAN_WAYS.contains(w) {
                    "scan: "
                } else {
                    "random: "
                },
                w.label()
            ),
            count(kswapd),
            count(direct),
            count(f.peak_tlb_per_s),
            count(f.tlb_per_s),
        ]
    })
    .collect();
    Table::new(
        &format!(
            "Measured: what this machine cannot reproduce; pages scanned for reclaim per trial (system-wide /proc/vmstat deltas, mean over the trials) by kswapd (the study's collapse: global eviction) and by global direct reclaim; the trial cgroup's own reclaim, which evicted the pages under a cgroup budget, is counted in neither, so 0 kswapd scans means kswapd did no eviction during the trial; and TLB shootdowns/s on this machine's {cpus} CPU(s) (the study: ~1.2 M/s with 100 threads on 64 cores)"
        ),
        &[
            "way",
            "pgscan_kswapd",
            "pgscan_direct",
            "peak TLB/s",
            "mean TLB/s",
        ],
        rows,
    )
}

impl Preset for Crotty2022 {
    fn in_all(&self) -> bool {
        false // it needs root for a memory cgroup, or a file larger than memory
    }

    fn options(&self) -> &'static [PresetOption] {
        &[
            PresetOption::Threads,
            PresetOption::Size,
            PresetOption::Duration,
        ]
    }

    fn prepare(&mut self, scope: Scope, choices: &Choices) -> Result<Option<String>> {
        *self = Crotty2022::resolve(scope, choices)?;
        Ok(self.setup.as_ref().map(|s| {
            format!(
                "crotty2022: page-cache budget {} ({} file, {} threads, {} s per trial)",
                s.budget,
                crate::size::format_size(s.file_size),
                s.threads,
                s.duration_s
            )
        }))
    }

    fn name(&self) -> &'static str {
        "crotty2022"
    }

    fn source(&self) -> &'static str {
        "A. Crotty, V. Leis, A. Pavlo, \"Are You Sure You Want to Use MMAP in Your Database Management System?\", CIDR 2022 (code: viktorleis/mmapbench)"
    }

    fn published(&self) -> Vec<Table> {
        let row = |a: &str, b: &str| vec![a.to_string(), b.to_string()];
        vec![Table::new(
            &format!(
                "Published (Figure 2, mmapbench CSVs; not one of the five seed studies: the later evidence): random 4 KiB reads, one NVMe SSD, {PUBLISHED_ON}, Linux 5.11, 2 TiB device mapping"
            ),
            &["method", "published"],
            vec![
                row("fio (psync, O_DIRECT, 4 KiB)", "~0.89 M reads/s, flat"),
                row(
                    "mmap + MADV_RANDOM",
                    "~0.89 M/s until memory filled (~27 s), ~0 for ~5 s, then ~0.42 M/s (47% of fio); ~1.2 M TLB shootdowns/s",
                ),
                row("mmap without MADV_RANDOM", "~0.02–0.04 M/s"),
                row("claim", "mmap 2–20x worse than explicit I/O once data exceeds memory"),
                row(
                    "sequential scan (20 threads, 128 MiB chunks), after memory filled",
                    &format!(
                        "mmap {}–{} GiB/s; fio (libaio, O_DIRECT, 1 MiB) {SCAN_FIO_GIB} GiB/s on one SSD, {SCAN_FIO_TEN_GIB} GiB/s on ten",
                        SCAN_MMAP_GIB.0, SCAN_MMAP_GIB.1
                    ),
                ),
            ],
        )]
    }

    fn plan(&self, scope: Scope) -> Plan {
        let s = self.setup_at(scope);
        let (_, _, _, runs) = nominal(scope);
        Plan {
            cases: WAYS.iter().chain(&SCAN_WAYS).map(|w| w.case(&s)).collect(),
            runs,
            warmup: 0,
            order: OrderPolicy::Alternating,
            metric: Metric::Loop,
            seed: 1,
        }
    }

    fn claims(&self, plan: &Plan) -> Vec<Claim> {
        const PREAD_SMALLEST: f64 = 1.10;
        let Some(s) = setup_of(&plan.cases) else {
            return Vec::new();
        };
        let c = |w: Way| w.case(&s);
        // "Explicit I/O beats mmap" with no figure of its own against pread:
        // at least 10%, so a difference within the no-effect band cannot hold.
        let faster = Expect::Effect(Published::faster(Size::AtLeast(PREAD_SMALLEST)));
        vec![
            Claim {
                id: "pread-beats-mmap".into(),
                text: "explicit I/O (pread) beats mmap + MADV_RANDOM once data exceeds memory (faster by at least 1.10x, faultline's smallest effect for a claim with no figure: the study's 2–20x is against O_DIRECT, the next claim; pread is not in the study's text, an extra row)".into(),
                pairs: vec![(c(Way::MmapRandom), c(Way::Pread))],
                expect: faster.clone(),
                quorum: 1.0,
                published: "mmap 2–20x worse than explicit I/O once data exceeds memory".into(),
            },
            Claim {
                id: "direct-2-20x".into(),
                text: "O_DIRECT reads (fio's baseline) are 2–20x faster than mmap + MADV_RANDOM once data exceeds memory".into(),
                pairs: vec![(c(Way::MmapRandom), c(Way::Direct))],
                expect: Expect::Effect(Published::faster(Size::Range {
                    low: 2.0,
                    high: 20.0,
                })),
                quorum: 1.0,
                published: "mmap 2–20x worse than explicit I/O (fio, O_DIRECT) once data exceeds memory".into(),
            },
            Claim {
                id: "madv-random".into(),
                text: format!(
                    "MADV_RANDOM makes mmap {:.1}–{:.0}x faster than default read-around when data exceeds memory (~{MMAP_AFTER_M} against {}–{} M reads/s)",
                    MMAP_AFTER_M / MMAP_NORMAL_M.1,
                    MMAP_AFTER_M / MMAP_NORMAL_M.0,
                    MMAP_NORMAL_M.0,
                    MMAP_NORMAL_M.1
                ),
                pairs: vec![(c(Way::MmapNormal), c(Way::MmapRandom))],
                expect: Expect::Effect(Published::faster(Size::Range {
                    low: MMAP_AFTER_M / MMAP_NORMAL_M.1,
                    high: MMAP_AFTER_M / MMAP_NORMAL_M.0,
                })),
                quorum: 1.0,
                published: format!(
                    "~{MMAP_AFTER_M} M reads/s with MADV_RANDOM after memory filled, {}–{} M/s without (mmapbench CSVs)",
                    MMAP_NORMAL_M.0, MMAP_NORMAL_M.1
                ),
            },
            Claim {
                id: "scan-direct-beats-mmap".into(),
                text: format!(
                    "a sequential scan by O_DIRECT 1 MiB reads (fio's baseline) is {:.1}–{:.1}x faster than the same scan through mmap once data exceeds memory ({SCAN_FIO_GIB} GiB/s against {}–{} GiB/s on one SSD)",
                    SCAN_FIO_GIB / SCAN_MMAP_GIB.1,
                    SCAN_FIO_GIB / SCAN_MMAP_GIB.0,
                    SCAN_MMAP_GIB.0,
                    SCAN_MMAP_GIB.1
                ),
                pairs: vec![(c(Way::ScanMmap), c(Way::ScanDirect))],
                expect: Expect::Effect(Published::faster(Size::Range {
                    low: SCAN_FIO_GIB / SCAN_MMAP_GIB.1,
                    high: SCAN_FIO_GIB / SCAN_MMAP_GIB.0,
                })),
                quorum: 1.0,
                published: format!(
                    "sequential scan after memory filled: mmap {}–{} GiB/s, fio (libaio, O_DIRECT, 1 MiB) {SCAN_FIO_GIB} GiB/s on one SSD, {SCAN_FIO_TEN_GIB} GiB/s on ten (mmapbench CSVs)",
                    SCAN_MMAP_GIB.0, SCAN_MMAP_GIB.1
                ),
            },
        ]
    }

    fn explain(&self, claim: &Claim, results: &RunResults) -> Option<String> {
        let s = setup_of(&cases_of(results))?;
        let describe = |case: &Case| {
            let f = figures(&timelines(results, case), s.budget.limit_bytes);
            format!(
                "{}: {} major faults/s, {} from the device per read, {} TLB shootdowns/s (peak {})",
                case.method_label(),
                f.major_faults_per_s
                    .map_or("-".into(), |x| format!("{x:.0}")),
                kib(f.device_bytes_per_read),
                f.tlb_per_s.map_or("-".into(), |x| format!("{x:.0}")),
                f.peak_tlb_per_s.map_or("-".into(), |x| format!("{x:.0}")),
            )
        };
        let (b, o) = claim.pairs.first()?;
        Some(format!("Timeline: {}; {}.", describe(o), describe(b)))
    }

    fn fidelity(&self) -> Vec<String> {
        let mut notes = vec![
            "Not one of the five seed studies faultline replays to settle their disagreement (sun2002, dillon2004, liege2018, fedorova2019, write2020): the later evidence, about mmap once data outgrows memory. Its figures come from the paper and from its benchmark's CSVs (viktorleis/mmapbench), not from a seed text.".to_string(),
        ];
        if let Some(s) = &self.setup {
            notes.push(format!(
                "This run: {} threads, a {} file, {} per trial, page-cache budget: {}.",
                s.threads,
                crate::size::format_size(s.file_size),
                format_args!("{} s", s.duration_s),
                s.budget
            ));
        }
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        notes.push(format!(
            "Not reproducible on a machine this small: the study's TLB-shootdown collapse grows with the cores that share the mapping (100 threads on a 64-core EPYC, ~1.2 M shootdowns/s); here {cpus} CPU(s), so one eviction interrupts at most {} other CPU(s), and the measured table's peak TLB/s cannot show how shootdowns scale with cores. The study's ~5 s stall when memory filled came from kswapd's global eviction, which a per-trial cgroup (direct reclaim by the readers) does not exercise.",
            cpus.saturating_sub(1)
        ));
        notes.extend([
            format!("Published on {PUBLISHED_ON} over a 2 TiB device (20x memory); a reproduction runs on this machine's cores and disk (see the machine notes) with a page cache limited by a cgroup (or a file larger than free memory), so its absolute rates are not the study's: compare shapes and ratios, not M reads/s."),
            "The memory budget is a cgroup limit on the trial process's page cache (memory.max or memory.limit_in_bytes), not the machine's RAM: reclaim is the cgroup's own (direct reclaim by the reading threads), not kswapd's global eviction the study measured.".into(),
            "Reads go to a file on a file system, not a raw device mapping. As in mmapbench, the threads share one mapping of it (one set of page tables, so evicting a page shoots down every worker CPU's TLB entry).".into(),
            "fio's psync O_DIRECT baseline is faultline's `direct` method run by the same threads; `pread` (buffered) and `uring` (buffered io_uring, depth 8 per thread) are added.".into(),
            "mmap + MADV_SEQUENTIAL (the third hint mmapbench takes) is measured beside MADV_RANDOM and the default, with no claim: the study gives no figure for it. Its read-ahead is the most aggressive of the three (and pages behind the reader are dropped first), so random 4 KiB reads bring in the most bytes per read; the measured table's device/read column shows how many.".into(),
            "TLB shootdowns are the `TLB:` line of /proc/interrupts summed over CPUs, system-wide as in the study; other work on the machine adds to them.".into(),
            "The kernel differs from the study's Linux 5.11 (folios, multi-gen LRU, per-VMA locks change eviction and fault costs).".into(),
            "Each trial starts from a cold cache, so the timeline shows the budget filling (the measured table's \"filled at\" column gives when) against ~27 s in the study.".into(),
            "Claims compare mean throughput over the whole trial (time per read, paired by run), which includes the seconds before the budget filled.".into(),
            format!("The sequential scan is scaled to this machine: the study's {SCAN_THREADS} threads each took the next {} chunk of a 2 TiB device; here the same threads as the random run (--threads) scan the same file, each its own contiguous share of it (file size / threads, the study's chunk scaled down with the file: quick and full sizes set the file), from its start and wrapping, in 1 MiB reads (touching one byte per page, as the random run). fio's libaio at depth is replaced by O_DIRECT pread, one 1 MiB read in flight per thread.", crate::size::format_size(SCAN_CHUNK)),
            "What a small machine cannot show, with this run's evidence in the measured table \"what this machine cannot reproduce\": the collapse the study saw when memory filled was kswapd's single-threaded global eviction falling behind 100 faulting threads; under a per-trial cgroup the readers reclaim for themselves (the cgroup's reclaim), so the table gives the pages kswapd and global direct reclaim scanned during each trial (system-wide /proc/vmstat deltas; the cgroup's own reclaim is in neither). The TLB-shootdown cost scales with the CPUs that run a thread of the mapping; the table gives the peak shootdowns/s measured with this machine's CPUs.".into(),
        ]);
        notes
    }

    fn measured(&self, results: &RunResults) -> Vec<Table> {
        let Some(s) = setup_of(&cases_of(results)) else {
            return Vec::new();
        };
        let base = Way::Direct.case(&s);
        let rows = WAYS
            .iter()
            .map(|w| {
                let case = w.case(&s);
                let f = figures(&timelines(results, &case), s.budget.limit_bytes);
                vec![
                    if w.in_study() {
                        w.label().to_string()
                    } else {
                        format!("{} (not in the study)", w.label())
                    },
                    rate(reads_per_s(results, &case)),
                    // One paired estimate, shown once: the point in its CI.
                    if *w == Way::Direct {
                        "baseline".into()
                    } else {
                        ratio_cell(results, &base, &case)
                    },
                    rate(f.before_fill),
                    rate(f.after_fill),
                    f.filled_at.map_or("never".into(), |x| format!("{x:.1} s")),
                    f.peak_tlb_per_s.map_or("-".into(), |x| format!("{x:.0}")),
                    f.major_faults_per_s
                        .map_or("-".into(), |x| format!("{x:.0}")),
                    mib_per_s(f.device_bytes_per_s),
                    kib(f.device_bytes_per_read),
                ]
            })
            .collect();
        let mut tables = vec![Table::new(
            &format!(
                "Measured: random 4 KiB reads, {} threads, {} file, {} s per trial from a cold cache, budget: {}; \
                 throughput relative to direct (O_DIRECT), {COMPARISON_NOTE}; before/after: mean reads/s up to / after the second the budget filled; rows marked \"not in the study\" are faultline's additions",
                s.threads,
                crate::size::format_size(s.file_size),
                s.duration_s,
                s.budget
            ),
            &[
                "method",
                "reads/s",
                &ratio_header("vs direct"),
                "before fill",
                "after fill",
                "filled at",
                "peak TLB/s",
                "major faults/s",
                "device",
                "device/read",
            ],
            rows,
        )];
        tables.extend(scan_table(results, &s));
        tables.push(evidence_table(results, &s));
        tables
    }

    fn plots(&self, results: &RunResults) -> Vec<Plot> {
        let Some(s) = setup_of(&cases_of(results)) else {
            return Vec::new();
        };
        let published_label = |what: &str| format!("published {what} ({PUBLISHED_ON})");
        let end = f64::from(s.duration_s.max(60));
        let mmap_published = |factor: f64| {
            vec![
                (1.0, FIO_M * factor, None),
                (FILLED_S, FIO_M * factor, None),
                (FILLED_S + 1.0, 0.01 * factor, None),
                (FILLED_S + STALL_S, 0.01 * factor, None),
                (FILLED_S + STALL_S + 1.0, MMAP_AFTER_M * factor, None),
                (end, MMAP_AFTER_M * factor, None),
            ]
        };
        let normal_mid = (MMAP_NORMAL_M.0 + MMAP_NORMAL_M.1) / 2.0;

        // Absolute: M reads/s on a log axis (the study's rates are ~50x ours).
        let mut absolute: Vec<Series> = WAYS
            .iter()
            .filter_map(|w| {
                let series = mean_series(&timelines(results, &w.case(&s)));
                (!series.is_empty()).then(|| Series {
                    label: format!("measured: {}", w.label()),
                    points: series
                        .iter()
                        .map(|&(t, r)| (f64::from(t), r / 1e6, None))
                        .collect(),
                    style: SeriesStyle::Measured,
                })
            })
            .collect();
        absolute.extend([
            Series {
                label: published_label("fio"),
                points: vec![(1.0, FIO_M, None), (end, FIO_M, None)],
                style: SeriesStyle::Published,
            },
            Series {
                label: published_label("mmap + MADV_RANDOM; ~0 drawn at 0.01"),
                points: mmap_published(1.0),
                style: SeriesStyle::Published,
            },
            Series {
                label: published_label("mmap, no advice"),
                points: vec![(1.0, normal_mid, None), (end, normal_mid, None)],
                style: SeriesStyle::Published,
            },
        ]);
        let mut timeline = series_plot(
            "crotty2022-timeline",
            "crotty2022: random 4 KiB reads per second, by method, from a cold cache",
            Axis::linear("seconds since the threads started"),
            Axis::log("M reads/s"),
            &absolute,
        );
        timeline.caption.push_str(&format!(
            " Measured: mean over the trials of each second; budget {} over a {} file, {} threads. \
             Published: the study's {PUBLISHED_ON} with 2 TiB of data, whose memory filled at ~27 s.",
            s.budget,
            crate::size::format_size(s.file_size),
            s.threads
        ));

        // Relative to the explicit-I/O baseline, second by second.
        let base = mean_series(&timelines(results, &Way::Direct.case(&s)));
        let mut relative: Vec<Series> = WAYS[1..]
            .iter()
            .filter_map(|w| {
                let series = mean_series(&timelines(results, &w.case(&s)));
                let points: Vec<_> = series
                    .iter()
                    .filter_map(|&(t, r)| {
                        let b = base.iter().find(|(bt, _)| *bt == t)?.1;
                        (b > 0.0).then(|| (f64::from(t), r / b, None))
                    })
                    .collect();
                (!points.is_empty()).then(|| Series {
                    label: format!("measured: {} / direct", w.label()),
                    points,
                    style: SeriesStyle::Measured,
                })
            })
            .collect();
        relative.extend([
            Series {
                label: published_label("mmap + MADV_RANDOM / fio"),
                points: mmap_published(1.0 / FIO_M),
                style: SeriesStyle::Published,
            },
            Series {
                label: published_label("mmap, no advice / fio"),
                points: vec![
                    (1.0, normal_mid / FIO_M, None),
                    (end, normal_mid / FIO_M, None),
                ],
                style: SeriesStyle::Published,
            },
        ]);
        let mut ratio = series_plot(
            "crotty2022-relative",
            "crotty2022: reads/s relative to direct I/O (fio's baseline), second by second",
            Axis::linear("seconds since the threads started"),
            Axis::linear("reads/s relative to direct (O_DIRECT)"),
            &relative,
        );
        ratio.caption.push_str(&format!(
            " 1 = as fast as O_DIRECT reads by the same threads. Published: relative to fio on {PUBLISHED_ON}."
        ));
        vec![timeline, ratio]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(second: u32, reads_per_s: f64, cgroup: u64) -> TimelinePoint {
        TimelinePoint {
            second,
            interval_s: 1.0,
            reads: reads_per_s as u64,
            reads_per_s,
            tlb_shootdowns_per_s: Some(f64::from(second) * 10.0),
            major_faults_per_s: 100.0,
            device_read_bytes_per_s: Some(reads_per_s * 4096.0),
            own_read_bytes_per_s: Some(reads_per_s * 4096.0),
            cgroup_bytes: Some(cgroup),
        }
    }

    #[test]
    fn figures_split_the_timeline_where_the_budget_filled() {
        let t = [
            point(1, 1000.0, 50),
            point(2, 900.0, 95),
            point(3, 100.0, 100),
            point(4, 300.0, 100),
        ];
        let f = figures(&[&t], 100);
        assert_eq!(f.filled_at, Some(2.0));
        assert_eq!(f.before_fill, Some(950.0));
        assert_eq!(f.after_fill, Some(200.0));
        assert_eq!(f.peak_tlb_per_s, Some(40.0));
        assert_eq!(f.device_bytes_per_read, Some(4096.0));
        // Never filled: everything is before.
        let f = figures(&[&t], 1000);
        assert_eq!((f.filled_at, f.after_fill), (None, None));
        assert_eq!(f.before_fill, Some(575.0));
    }

    #[test]
    fn plan_compares_six_ways_and_a_three_way_scan_for_a_duration_under_a_budget() {
        let plan = Crotty2022::default().plan(Scope::new(false, 256));
        assert_eq!(plan.cases.len(), 6 + 3);
        let advice: Vec<_> = plan.cases[..6].iter().filter_map(|c| c.advice).collect();
        assert_eq!(
            advice,
            [Advice::Random, Advice::Normal, Advice::Sequential],
            "the three hints mmapbench takes"
        );
        assert_eq!(
            plan.groups().len(),
            2,
            "two groups: the random run and the scan, only the method differing within each"
        );
        let scan = &plan.cases[6..];
        assert!(scan
            .iter()
            .all(|c| c.pattern == Pattern::Seq && c.block_size == SCAN_BLOCK));
        assert_eq!(
            scan.iter().map(|c| c.method).collect::<Vec<_>>(),
            [MethodKind::Direct, MethodKind::Pread, MethodKind::Mmap]
        );
        for c in &plan.cases {
            assert_eq!(c.duration_s, Some(3));
            let b = c.memory_budget.unwrap();
            assert!(c.file_size > b.limit_bytes && c.file_size <= 64 << 20);
            assert_eq!(crate::trial::timed::refusal(c), None);
        }
        let claims = Crotty2022::default().claims(&plan);
        assert_eq!(claims.len(), 4);
        for claim in &claims {
            for (b, o) in &claim.pairs {
                assert!(plan.cases.contains(b) && plan.cases.contains(o));
            }
        }
        let full = Crotty2022::default().plan(Scope::FULL);
        assert_eq!(full.cases[0].file_size, 20 << 30);
        assert_eq!(full.cases[0].duration_s, Some(60));
    }
}
