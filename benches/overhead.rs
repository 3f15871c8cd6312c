//! The harness's own cost: faultline's measured main loop against bare loops
//! that do the same work with no harness (no child process, no trait objects,
//! no counters), on the same warm file in the same cache layout.
//!
//! Run with `cargo bench --bench overhead` (FAULTLINE_BENCH_SIZE=64M for a
//! quicker run, FAULTLINE_BENCH_RUNS=N for more runs). Prints one line per
//! case: the median throughput of each, and faultline's as a fraction of the bare loop's.
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use faultline::files::dataset::{self, Dataset};
use faultline::pattern::{BlockOrder, Layout, Pattern};
use faultline::plan::{CacheState, WarmBy};
use faultline::runner::cache::Preparer;
use faultline::workload::sum_bytes;

struct BenchCase {
    name: &'static str,
    method: &'static str,
    pattern: Pattern,
    block: usize,
    bare: fn(&Path, &BlockOrder, Layout) -> u64,
}

fn bare_read(path: &Path, _: &BlockOrder, layout: Layout) -> u64 {
    let mut file = File::open(path).unwrap();
    let mut buf = vec![0xa5u8; layout.block_size as usize];
    let mut total = 0u64;
    loop {
        let n = file.read(&mut buf).unwrap();
        if n == 0 {
            break total;
        }
        total = total.wrapping_add(sum_bytes(std::hint::black_box(&buf[..n])));
    }
}

fn bare_mmap(path: &Path, _: &BlockOrder, layout: Layout) -> u64 {
    let file = File::open(path).unwrap();
    let map = unsafe { memmap2::Mmap::map(&file).unwrap() };
    let mut total = 0u64;
    for chunk in map.chunks(layout.block_size as usize) {
        total = total.wrapping_add(sum_bytes(std::hint::black_box(chunk)));
    }
    total
}

fn indices(order: &BlockOrder) -> &[u32] {
    match order {
        BlockOrder::Listed(v) => v,
        _ => panic!("random cases only: they list their blocks"),
    }
}

fn bare_pread(path: &Path, order: &BlockOrder, layout: Layout) -> u64 {
    let file = File::open(path).unwrap();
    let mut buf = vec![0xa5u8; layout.block_size as usize];
    let mut total = 0u64;
    for &i in indices(order) {
        let (offset, len) = layout.block(i as u64);
        file.read_exact_at(&mut buf[..len], offset).unwrap();
        total = total.wrapping_add(sum_bytes(std::hint::black_box(&buf[..len])));
    }
    total
}

fn bare_mmap_copy(path: &Path, order: &BlockOrder, layout: Layout) -> u64 {
    let file = File::open(path).unwrap();
    let map = unsafe { memmap2::Mmap::map(&file).unwrap() };
    let mut buf = vec![0xa5u8; layout.block_size as usize];
    let mut total = 0u64;
    for &i in indices(order) {
        let (offset, len) = layout.block(i as u64);
        buf[..len].copy_from_slice(&map[offset as usize..offset as usize + len]);
        total = total.wrapping_add(sum_bytes(std::hint::black_box(&buf[..len])));
    }
    total
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn faultline_bin() -> PathBuf {
    let mut dir = std::env::current_exe().unwrap();
    dir.pop();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join("faultline")
}

/// Main-loop throughputs (bytes/s) faultline measured for one case.
fn faultline_throughputs(
    case: &BenchCase,
    data_dir: &Path,
    size: u64,
    runs: u32,
) -> (Vec<f64>, u64) {
    let json = data_dir.join(format!("bench-{}.json", case.name));
    let status = Command::new(faultline_bin())
        .args([
            "run",
            "--cache",
            "warm",
            "--workload",
            "sum",
            "--metric",
            "loop",
            "--method",
            case.method,
        ])
        .args([
            "--pattern",
            case.pattern.name(),
            "--block",
            &case.block.to_string(),
        ])
        .args([
            "--size",
            &size.to_string(),
            "--runs",
            &runs.to_string(),
            "--seed",
            "1",
        ])
        .arg("--data-dir")
        .arg(data_dir)
        .arg("--export-json")
        .arg(&json)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("run faultline (build it first: cargo build --release)");
    assert!(status.success(), "faultline failed for {}", case.name);
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let samples = results["cases"][0]["samples"].as_array().unwrap();
    let checksum = samples[0]["checksum"].as_u64().unwrap();
    let rates = samples
        .iter()
        .map(|s| s["bytes"].as_f64().unwrap() / (s["wall_ns"].as_f64().unwrap() / 1e9))
        .collect();
    (rates, checksum)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let size = std::env::var("FAULTLINE_BENCH_SIZE")
        .ok()
        .map(|s| faultline::size::parse_size(&s).expect("FAULTLINE_BENCH_SIZE"))
        .unwrap_or(256 << 20);
    let runs: u32 = std::env::var("FAULTLINE_BENCH_RUNS")
        .ok()
        .map(|s| s.parse().unwrap())
        .unwrap_or(10);
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
            method: "read",
            pattern: Pattern::Seq,
            block: 16 << 10,
            bare: bare_read,
        },
        BenchCase {
            name: "warm seq 16 KiB mmap sum",
            method: "mmap",
            pattern: Pattern::Seq,
            block: 16 << 10,
            bare: bare_mmap,
        },
        BenchCase {
            name: "warm random 4 KiB pread",
            method: "pread",
            pattern: Pattern::Random,
            block: 4 << 10,
            bare: bare_pread,
        },
        BenchCase {
            name: "warm random 4 KiB mmap-copy",
            method: "mmap-copy",
            pattern: Pattern::Random,
            block: 4 << 10,
            bare: bare_mmap_copy,
        },
    ];
    println!(
        "harness overhead: {} file, {runs} runs each, median main-loop throughput",
        faultline::size::format_size(size)
    );
    for case in &cases {
        let layout = Layout {
            file_size: size,
            block_size: case.block as u64,
        };
        let order = BlockOrder::new(case.pattern, layout, 1).unwrap();
        // Bare loops before and after faultline's runs, so drift hits both.
        let mut bare = Vec::new();
        let mut bare_sum = 0;
        let mut bare_runs = |n: u32, bare: &mut Vec<f64>| {
            for _ in 0..n {
                preparer
                    .prepare(&dataset, CacheState::Warm, WarmBy::Seq)
                    .unwrap();
                let t = Instant::now();
                bare_sum = std::hint::black_box((case.bare)(&path, &order, layout));
                bare.push(size as f64 / t.elapsed().as_secs_f64());
            }
        };
        bare_runs(runs.div_ceil(2), &mut bare);
        let (measured, checksum) = faultline_throughputs(case, &data_dir, size, runs);
        bare_runs(runs / 2, &mut bare);
        assert_eq!(
            checksum, bare_sum,
            "faultline and the bare loop did different work"
        );
        let (b, f) = (median(bare), median(measured));
        println!(
            "{:<30} bare {:>6.2} GB/s   faultline {:>6.2} GB/s   faultline/bare {:.3}",
            case.name,
            b / 1e9,
            f / 1e9,
            f / b
        );
    }
}
