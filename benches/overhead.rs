//! The harness's own cost: faultline's trial against bare loops that do the
//! same work with no harness (no child process, no trait objects, no
//! counters), on the same warm file in the same cache layout, as
//! interleaved pairs.
//!
//! Each pair is one real trial (the binary's `__trial` child, sent the spec
//! the runner would send, its main-loop time as it reports it) and one run
//! of the bare loop in this process (its loop alone timed: the file opened,
//! the buffer filled and the file mapped before the clock, as the trial's
//! setup does outside its own; its buffer page-aligned, as the trial's),
//! after the file was warmed again, the two in alternating order (the trial first in odd pairs). Rounds go over
//! every case in turn, so a load that comes and goes hits every case and
//! both sides of each pair alike. A pair's ratio is faultline's throughput
//! over the bare loop's; each case prints the geometric mean of its pairs'
//! ratios with the paired t interval on their logs
//! ([`faultline::stats::log_ratios::LogRatios`]), and the median pair.
//!
//! Run with `cargo build --release && cargo bench --bench overhead`.
//! FAULTLINE_BENCH_SIZE (default 256M) sets the file, FAULTLINE_BENCH_PAIRS
//! (default 40) the pairs per case, FAULTLINE_BENCH_ONLY=TEXT keeps the
//! cases whose name contains TEXT.
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

use faultline::files::dataset::{self, Dataset};
use faultline::method::MethodKind;
use faultline::pattern::{BlockOrder, Layout, Pattern};
use faultline::plan::{CacheState, Case, WarmBy};
use faultline::results::ChildReport;
use faultline::runner::cache::Preparer;
use faultline::stats::log_ratios::LogRatios;
use faultline::trial::TrialSpec;
use faultline::workload::{sum_bytes, WorkloadKind};

/// What a bare loop works on, made before its clock starts.
struct Bare<'a> {
    file: File,
    order: &'a BlockOrder,
    layout: Layout,
}

/// Runs a bare loop's body inside its clock; returns the body's checksum.
type Timed<'a> = &'a mut dyn FnMut(&mut dyn FnMut() -> u64) -> u64;

struct BenchCase {
    name: &'static str,
    method: MethodKind,
    pattern: Pattern,
    block: u64,
    /// The bare loop: prepares what it needs, then runs `timed` around its
    /// loop alone; returns the checksum.
    bare: fn(&Bare, Timed) -> u64,
}

/// A block-sized buffer starting on a page boundary, as faultline's trial
/// buffers do (`method::prefaulted_buffer`), pre-faulted: the storage and
/// where the buffer starts in it.
fn buffer(layout: Layout) -> (Vec<u8>, usize) {
    let storage = vec![0xa5u8; layout.block_size as usize + 4096];
    let start = storage.as_ptr().align_offset(4096);
    (storage, start)
}

fn bare_read(b: &Bare, timed: Timed) -> u64 {
    let mut file = &b.file;
    let (mut storage, start) = buffer(b.layout);
    let buf = &mut storage[start..start + b.layout.block_size as usize];
    timed(&mut || {
        let mut total = 0u64;
        loop {
            let n = file.read(buf).unwrap();
            if n == 0 {
                break total;
            }
            total = total.wrapping_add(sum_bytes(std::hint::black_box(&buf[..n])));
        }
    })
}

fn bare_mmap(b: &Bare, timed: Timed) -> u64 {
    let map = unsafe { memmap2::Mmap::map(&b.file).unwrap() };
    timed(&mut || {
        let mut total = 0u64;
        for chunk in map.chunks(b.layout.block_size as usize) {
            total = total.wrapping_add(sum_bytes(std::hint::black_box(chunk)));
        }
        total
    })
}

fn indices(order: &BlockOrder) -> &[u32] {
    match order {
        BlockOrder::Listed(v) => v,
        _ => panic!("random cases only: they list their blocks"),
    }
}

fn bare_pread(b: &Bare, timed: Timed) -> u64 {
    let (mut storage, start) = buffer(b.layout);
    let buf = &mut storage[start..start + b.layout.block_size as usize];
    timed(&mut || {
        let mut total = 0u64;
        for &i in indices(b.order) {
            let (offset, len) = b.layout.block(i as u64);
            b.file.read_exact_at(&mut buf[..len], offset).unwrap();
            total = total.wrapping_add(sum_bytes(std::hint::black_box(&buf[..len])));
        }
        total
    })
}

fn bare_mmap_copy(b: &Bare, timed: Timed) -> u64 {
    let map = unsafe { memmap2::Mmap::map(&b.file).unwrap() };
    let (mut storage, start) = buffer(b.layout);
    let buf = &mut storage[start..start + b.layout.block_size as usize];
    timed(&mut || {
        let mut total = 0u64;
        for &i in indices(b.order) {
            let (offset, len) = b.layout.block(i as u64);
            buf[..len].copy_from_slice(&map[offset as usize..offset as usize + len]);
            total = total.wrapping_add(sum_bytes(std::hint::black_box(&buf[..len])));
        }
        total
    })
}

/// The bare loop's main-loop time, ns, and checksum.
fn run_bare(case: &BenchCase, path: &Path, order: &BlockOrder, layout: Layout) -> (u64, u64) {
    let bare = Bare {
        file: File::open(path).unwrap(),
        order,
        layout,
    };
    let mut ns = 0;
    let checksum = (case.bare)(&bare, &mut |body| {
        let t = Instant::now();
        let sum = std::hint::black_box(body());
        ns = t.elapsed().as_nanos() as u64;
        sum
    });
    (ns, checksum)
}

fn faultline_bin() -> PathBuf {
    let mut dir = std::env::current_exe().unwrap();
    dir.pop();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join("faultline")
}

/// One real trial of `spec`: the binary's trial child, as the runner
/// starts it.
fn run_trial(exe: &Path, spec: &TrialSpec) -> ChildReport {
    let mut child = faultline::runner::trial_command(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start faultline's trial (build it first: cargo build --release)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&serde_json::to_vec(spec).unwrap())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the trial failed: {:?}", out.status);
    serde_json::from_slice(&out.stdout).expect("the trial's report")
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).map_or(default, |s| {
        s.parse()
            .unwrap_or_else(|_| panic!("{name}: not a valid value: {s}"))
    })
}

/// One case's pairs so far: (faultline ns, bare ns) each.
struct Pairs {
    case: BenchCase,
    order: BlockOrder,
    spec: TrialSpec,
    times: Vec<(u64, u64)>,
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let size = std::env::var("FAULTLINE_BENCH_SIZE")
        .ok()
        .map(|s| faultline::size::parse_size(&s).expect("FAULTLINE_BENCH_SIZE"))
        .unwrap_or(256 << 20);
    let pairs: usize = env_or("FAULTLINE_BENCH_PAIRS", 40);
    assert!(pairs >= 2, "FAULTLINE_BENCH_PAIRS: at least 2");
    let only = std::env::var("FAULTLINE_BENCH_ONLY").unwrap_or_default();
    let exe = faultline_bin();
    let scratch = tempfile::tempdir().unwrap();
    let data_dir = scratch.path().join("data");
    let Dataset { path, .. } = dataset::ensure_generated(&data_dir, size, 1, |_| {}).unwrap();
    let dataset = Dataset {
        path: path.clone(),
        size,
        seed: Some(1),
    };
    let preparer = Preparer { drop_caches: false };
    let cases = [
        BenchCase {
            name: "warm seq 16 KiB read",
            method: MethodKind::Read,
            pattern: Pattern::Seq,
            block: 16 << 10,
            bare: bare_read,
        },
        BenchCase {
            name: "warm seq 16 KiB mmap sum",
            method: MethodKind::Mmap,
            pattern: Pattern::Seq,
            block: 16 << 10,
            bare: bare_mmap,
        },
        BenchCase {
            name: "warm random 4 KiB pread",
            method: MethodKind::Pread,
            pattern: Pattern::Random,
            block: 4 << 10,
            bare: bare_pread,
        },
        BenchCase {
            name: "warm random 4 KiB mmap-copy",
            method: MethodKind::MmapCopy,
            pattern: Pattern::Random,
            block: 4 << 10,
            bare: bare_mmap_copy,
        },
    ];
    let mut all: Vec<Pairs> = cases
        .into_iter()
        .filter(|c| c.name.contains(&only))
        .map(|case| {
            let c = Case::new(
                case.method,
                case.pattern,
                case.block,
                size,
                WorkloadKind::Sum,
                CacheState::Warm,
            );
            let order = c.block_order().unwrap();
            let spec = TrialSpec {
                path: path.clone(),
                case: c,
                keep_output: None,
                cgroup_usage: None,
                content_seed: dataset.seed,
                profile: None,
            };
            Pairs {
                case,
                order,
                spec,
                times: Vec::new(),
            }
        })
        .collect();
    assert!(!all.is_empty(), "FAULTLINE_BENCH_ONLY={only} keeps no case");
    println!(
        "harness overhead: {} file, {pairs} interleaved pairs per case (faultline's trial, the bare loop)",
        faultline::size::format_size(size)
    );
    let warm = || {
        preparer
            .prepare(&dataset, CacheState::Warm, WarmBy::Seq)
            .unwrap();
    };
    for round in 0..pairs {
        for p in &mut all {
            let layout = p.spec.case.layout();
            // Warmed once per pair: the file stays cached between its two
            // sides (nothing else here reads or evicts it).
            warm();
            let trial = || run_trial(&exe, &p.spec);
            let bare = || run_bare(&p.case, &path, &p.order, layout);
            let (report, (bare_ns, bare_sum)) = if round % 2 == 0 {
                let r = trial();
                (r, bare())
            } else {
                let b = bare();
                (trial(), b)
            };
            assert_eq!(
                report.checksum, bare_sum,
                "{}: faultline and the bare loop did different work",
                p.case.name
            );
            assert_eq!(report.bytes, p.order.bytes(layout));
            p.times.push((report.wall_ns, bare_ns));
        }
        eprint!("\r{}/{pairs} rounds", round + 1);
    }
    eprintln!();
    println!(
        "{:<28} {:>9} {:>10}   faultline/bare: geometric mean [95% CI], median pair",
        "case", "bare GB/s", "faultline"
    );
    for p in &all {
        let bytes = p.order.bytes(p.spec.case.layout()) as f64;
        // ln(faultline throughput / bare throughput) = ln(bare ns / faultline ns).
        let logs: Vec<f64> = p
            .times
            .iter()
            .map(|&(f, b)| (b as f64 / f as f64).ln())
            .collect();
        let stats = LogRatios::of(&logs).expect("at least two pairs of finite times");
        let hw = stats.half_width(0.95);
        let mut sorted = logs.clone();
        sorted.sort_by(f64::total_cmp);
        let median = (sorted[(sorted.len() - 1) / 2] + sorted[sorted.len() / 2]) / 2.0;
        let rate = |ns: &dyn Fn(&(u64, u64)) -> u64| {
            // Bytes per ns: GB/s.
            let mut r: Vec<f64> = p.times.iter().map(|t| bytes / ns(t) as f64).collect();
            r.sort_by(f64::total_cmp);
            r[r.len() / 2]
        };
        println!(
            "{:<28} {:>9.2} {:>10.2}   {:.3} [{:.3}, {:.3}], {:.3}",
            p.case.name,
            rate(&|t| t.1),
            rate(&|t| t.0),
            stats.mean.exp(),
            (stats.mean - hw).exp(),
            (stats.mean + hw).exp(),
            median.exp(),
        );
    }
}
