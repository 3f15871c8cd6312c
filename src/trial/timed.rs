//! Duration-bounded trials (`Case::duration_s`): N workers read random
//! blocks (drawn with replacement) for a fixed number of seconds while a
//! sampler records a per-second [`crate::measure::timeline`]. This is the shape of
//! the CIDR 2022 mmap study's benchmark (`crotty2022`), whose point is how
//! throughput changes over time as the page cache fills.
//!
//! - Each worker has its own method (its own descriptor) and its own seeded
//!   random stream of
//!   block indices, drawn in chunks of [`chunk_reads`] reads between which it
//!   publishes its count and checks the stop flag. Drawing the indices is
//!   inside the loop (the number of reads is not known in advance); it costs
//!   nanoseconds against microseconds per read, the same for every method.
//!   The case's thread mode does not apply: the workers share no order.
//! - The mapping methods map the file once and every worker reads that one
//!   mapping, as a program's threads (and the study's benchmark) do: one
//!   set of page tables, so evicting a page must shoot down the entry in
//!   every CPU's TLB that runs a worker.
//! - Setup (mapping, advice) happens before the workers are released and is
//!   reported as setup time; the main loop runs from the release until the
//!   last worker stops, just after the sampler's last tick.
//! - Only `touch` is allowed, so that the checksum can be checked without
//!   re-reading: when the file is a generated one (`content_seed`), every
//!   worker's stream is replayed after the clock stops and each touched
//!   byte's expected value is recomputed from the generator; a difference
//!   fails the trial. The trial's checksum is the wrapping sum of the
//!   workers' (as `--thread-mode split`).
use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::{Error, Result};
use crate::measure::timeline::{bucket, read_number, tlb_shootdowns, OpCounters, Reading};
use crate::measure::{device, CounterReading};
use crate::method::{LoopCounts, Method, MethodKind, MmapMethod, Untimed};
use crate::pattern::{BlockOrder, Layout};
use crate::plan::Case;
use crate::results::ChildReport;
use crate::workload::WorkloadKind;

/// Reads an io_uring worker makes between two looks at the stop flag, per
/// request in flight: see [`chunk_reads`].
pub const CHUNK: usize = 32;

/// Reads a worker makes between two looks at the stop flag, publishing its
/// count after each chunk. A method with one request in flight takes one
/// read at a time, so the per-second timeline counts every read in the
/// second it completed, even at a few reads per second (a relaxed add to
/// the worker's own cache line, nanoseconds against a read's microseconds).
/// An io_uring method lets its ring drain at the end of each `run`, so it
/// takes [`CHUNK`] reads per request in flight (`--depth`): the drain then
/// covers at most one read in 32.
pub fn chunk_reads(case: &Case) -> usize {
    match case.io.depth {
        Some(depth) if matches!(case.method, MethodKind::Uring | MethodKind::UringDirect) => {
            CHUNK * depth.max(1) as usize
        }
        _ => 1,
    }
}

/// Why a case cannot run for a duration, as one line; `None` when it can.
pub fn refusal(case: &Case) -> Option<String> {
    case.duration_s?;
    if case.method.writes() {
        return Some(format!(
            "a duration-bounded trial reads; {} writes",
            case.method
        ));
    }
    if case.workload != WorkloadKind::Touch {
        return Some(format!(
            "a duration-bounded trial runs the touch workload, not {}",
            case.workload
        ));
    }
    if case.latency || case.procs.is_some() {
        return Some("a duration-bounded trial takes neither --latency nor --procs".into());
    }
    if case.block_size == 0 || !case.file_size.is_multiple_of(case.block_size) {
        return Some(format!(
            "a duration-bounded trial reads whole blocks: a {} B file is not a whole number of {} B blocks",
            case.file_size, case.block_size
        ));
    }
    None
}

/// Where the sampler reads the trial's cgroup charge, and how the file was made.
#[derive(Clone, Debug)]
pub struct TimedInputs<'a> {
    /// The file the workers read.
    pub path: &'a Path,
    /// The cgroup file holding the memory charged to the trial (`memory.current`).
    pub cgroup_usage: Option<&'a Path>,
    /// The seed the file was generated from, when faultline generated it.
    pub content_seed: Option<u64>,
    /// Samples from the workers' release until they are told to stop
    /// (`--profile`; opened before the workers exist, so that it follows them).
    pub profiler: Option<&'a crate::measure::profile::Profiler>,
}

/// The random stream of worker `w`.
fn worker_rng(seed: u64, w: usize) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed ^ (w as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// Runs a duration-bounded trial.
pub fn run_for_duration(
    case: &Case,
    inputs: &TimedInputs,
    page_size: usize,
) -> Result<ChildReport> {
    let seconds = case
        .duration_s
        .ok_or_else(|| Error::Trial("a timed trial without a duration".into()))?;
    if let Some(why) = refusal(case) {
        return Err(Error::Trial(why));
    }
    let workers = case.threads.map_or(1, |t| t.count.max(1)) as usize;
    let layout = case.layout();
    let blocks = u32::try_from(layout.blocks()).map_err(|_| {
        Error::Plan("too many blocks for a random order; use a larger --block".into())
    })?;
    let path = inputs.path;
    let files = (0..workers)
        .map(|_| File::open(path).map_err(|e| Error::io("open", path, e)))
        .collect::<Result<Vec<File>>>()?;
    let device_stat = files.first().and_then(device::stat_path);
    let counters = OpCounters::new(workers);
    let stop = AtomicBool::new(false);
    let failed = AtomicBool::new(false);
    let barrier = Barrier::new(workers + 1);

    let before = CounterReading::before(device_stat.as_deref());
    let started = Instant::now();
    let mut shared_map = match case.method {
        MethodKind::Mmap | MethodKind::MmapCopy => {
            let file = File::open(path).map_err(|e| Error::io("open", path, e))?;
            let copy = case.method == MethodKind::MmapCopy;
            let mut owner = MmapMethod::new(file, layout, case.mmap_options(), copy);
            owner.setup()?;
            Some(owner)
        }
        _ => None,
    };
    let mut sharers = (0..workers)
        .map(|_| match &shared_map {
            Some(owner) => owner
                .sharing()
                .map(Some)
                .ok_or_else(|| Error::Trial("could not share the mapping".into())),
            None => Ok(None),
        })
        .collect::<Result<Vec<Option<MmapMethod>>>>()?;
    let read_now = |at: Instant, t0: Instant| Reading {
        at_ns: (at - t0).as_nanos() as u64,
        reads: counters.total(),
        tlb_shootdowns: tlb_shootdowns(),
        major_faults: crate::measure::rusage::snapshot().totals().majflt,
        device_read_bytes: device_stat
            .as_deref()
            .and_then(device::snapshot)
            .map(|s| s.delta_since(&Default::default()).read_bytes),
        cgroup_bytes: inputs.cgroup_usage.and_then(read_number),
    };

    type WorkerResult = Result<(u64, u64, LoopCounts, Instant, Instant)>;
    let (t0, readings, results) = std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .into_iter()
            .enumerate()
            .zip(sharers.drain(..))
            .map(|((w, file), sharer)| {
                let (barrier, counters, stop, failed) = (&barrier, &counters, &stop, &failed);
                scope.spawn(move || -> WorkerResult {
                    let mut method: Box<dyn Method> = match sharer {
                        Some(m) => Box::new(m),
                        None => case.build_method(file, layout, Box::new(Untimed)),
                    };
                    let mut workload = case.build_workload(page_size);
                    let set_up = method.setup();
                    if set_up.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    barrier.wait();
                    set_up?;
                    let start = Instant::now();
                    let mut rng = worker_rng(case.seed, w);
                    let chunk = chunk_reads(case);
                    let mut order = BlockOrder::Listed(Vec::with_capacity(chunk));
                    let mut reads = 0u64;
                    let mut counts = LoopCounts::default();
                    while !stop.load(Ordering::Relaxed) {
                        if let BlockOrder::Listed(v) = &mut order {
                            v.clear();
                            v.extend((0..chunk).map(|_| rng.random_range(0..blocks)));
                        }
                        let c = match method.run(&order, workload.as_mut()) {
                            Ok(c) => c,
                            Err(e) => {
                                failed.store(true, Ordering::Relaxed);
                                return Err(e);
                            }
                        };
                        counts.bytes += c.bytes;
                        counts.syscalls += c.syscalls;
                        reads += chunk as u64;
                        counters.add(w, chunk as u64);
                    }
                    let end = Instant::now();
                    method.teardown()?;
                    let checksum = std::hint::black_box(workload.checksum());
                    Ok((reads, checksum, counts, start, end))
                })
            })
            .collect();
        barrier.wait();
        let t0 = Instant::now();
        let switched_on = crate::trial::switch_profiler(inputs.profiler, true);
        let mut readings = vec![read_now(t0, t0)];
        for k in 1..=u64::from(seconds) {
            let tick = t0 + Duration::from_secs(k);
            // Short naps, so that a failed worker ends the trial early.
            loop {
                let now = Instant::now();
                if now >= tick || failed.load(Ordering::Relaxed) {
                    break;
                }
                std::thread::sleep((tick - now).min(Duration::from_millis(100)));
            }
            if failed.load(Ordering::Relaxed) {
                break;
            }
            readings.push(read_now(Instant::now(), t0));
        }
        stop.store(true, Ordering::Relaxed);
        let switched = switched_on.and(crate::trial::switch_profiler(inputs.profiler, false));
        let results: Vec<WorkerResult> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Trial("a trial worker panicked".into())))
            })
            .collect();
        (t0, readings, (switched, results))
    });
    let (switched, results) = results;
    switched?;
    if let Some(owner) = shared_map.as_mut() {
        owner.teardown()?;
    }
    let joined = Instant::now();
    let after = CounterReading::after(device_stat.as_deref());

    let mut report = ChildReport {
        setup_ns: (t0 - started).as_nanos() as u64,
        ..ChildReport::counted(after.since(&before))
    };
    let mut last_end = t0;
    let mut checksum = 0u64;
    let mut reads_per_worker = Vec::with_capacity(workers);
    for result in results {
        let (reads, sum, counts, start, end) = result?;
        report.thread_ns.push((end - start).as_nanos() as u64);
        last_end = last_end.max(end);
        checksum = checksum.wrapping_add(sum);
        report.bytes += counts.bytes;
        report.syscalls += counts.syscalls;
        reads_per_worker.push(reads);
    }
    if workers == 1 {
        report.thread_ns.clear();
    }
    let expected_bytes: u64 = reads_per_worker.iter().sum::<u64>() * case.block_size;
    if report.bytes != expected_bytes {
        return Err(Error::Trial(format!(
            "{} delivered {} bytes for {} reads, expected {expected_bytes}",
            case.method,
            report.bytes,
            reads_per_worker.iter().sum::<u64>()
        )));
    }
    if let Some(seed) = inputs.content_seed {
        let expected = expected_checksum(case, layout, seed, &reads_per_worker, page_size);
        if expected != checksum {
            return Err(Error::Trial(format!(
                "{} touched bytes that sum to {checksum:#x}, but the generated file holds {expected:#x} there",
                case.method
            )));
        }
    }
    report.wall_ns = (last_end - t0).as_nanos() as u64;
    report.teardown_ns = (joined - last_end).as_nanos() as u64;
    report.checksum = checksum;
    report.timeline = bucket(&readings);
    Ok(report)
}

/// The touch checksum the workers should have produced over a generated
/// file: each worker's stream replayed for its number of reads, each touched
/// byte recomputed from the generator (one byte per page of each block).
pub fn expected_checksum(
    case: &Case,
    layout: Layout,
    content_seed: u64,
    reads_per_worker: &[u64],
    page_size: usize,
) -> u64 {
    let blocks = layout.blocks() as u32;
    let mut content = ChaCha8Rng::seed_from_u64(content_seed);
    let mut sum = 0u64;
    for (w, &reads) in reads_per_worker.iter().enumerate() {
        let mut rng = worker_rng(case.seed, w);
        for _ in 0..reads {
            let (offset, len) = layout.block(u64::from(rng.random_range(0..blocks)));
            let mut step = 0;
            while step < len {
                sum = sum.wrapping_add(u64::from(generated_byte(
                    &mut content,
                    offset + step as u64,
                )));
                step += page_size.max(1);
            }
        }
    }
    sum
}

/// The byte at `offset` of a generated file whose generator is `content`
/// (the ChaCha8 stream of [`crate::files::dataset::write_content`], addressable in
/// 4-byte words).
fn generated_byte(content: &mut ChaCha8Rng, offset: u64) -> u8 {
    content.set_word_pos(u128::from(offset / 4));
    let mut word = [0u8; 4];
    content.fill_bytes(&mut word);
    word[(offset % 4) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_bytes_match_the_generated_file() {
        let mut file = Vec::new();
        crate::files::dataset::write_content(&mut file, 100_003, 42).unwrap();
        let mut content = ChaCha8Rng::seed_from_u64(42);
        for offset in [0u64, 1, 2, 3, 4, 4095, 4096, 65_537, 100_002] {
            assert_eq!(
                generated_byte(&mut content, offset),
                file[offset as usize],
                "{offset}"
            );
        }
    }

    #[test]
    fn expected_checksum_replays_each_workers_stream() {
        let size = 64 * 4096u64;
        let mut file = Vec::new();
        crate::files::dataset::write_content(&mut file, size, 7).unwrap();
        let layout = Layout {
            file_size: size,
            block_size: 4096,
        };
        let case = crate::studies::read_case(
            crate::method::MethodKind::Pread,
            crate::pattern::Pattern::RandomReplace,
            4096,
            size,
            WorkloadKind::Touch,
            crate::plan::CacheState::Cold,
        );
        // By hand: worker w's stream, first byte of each block.
        let mut by_hand = 0u64;
        for (w, reads) in [(0usize, 10u64), (1, 3)] {
            let mut rng = worker_rng(case.seed, w);
            for _ in 0..reads {
                let b = rng.random_range(0..64u32) as usize;
                by_hand = by_hand.wrapping_add(u64::from(file[b * 4096]));
            }
        }
        assert_eq!(expected_checksum(&case, layout, 7, &[10, 3], 4096), by_hand);
        assert_ne!(expected_checksum(&case, layout, 7, &[10, 4], 4096), by_hand);
    }

    #[test]
    fn an_io_uring_chunk_holds_32_reads_per_request_in_flight() {
        let mut case = crate::studies::read_case(
            crate::method::MethodKind::Uring,
            crate::pattern::Pattern::RandomReplace,
            4096,
            1 << 20,
            WorkloadKind::Touch,
            crate::plan::CacheState::Cold,
        );
        case.io.depth = Some(8);
        assert_eq!(chunk_reads(&case), 256);
        case.method = crate::method::MethodKind::Pread;
        case.io.depth = None;
        assert_eq!(
            chunk_reads(&case),
            1,
            "one read at a time: counted when it completes"
        );
    }

    #[test]
    fn only_touch_reads_run_for_a_duration() {
        let mut case = crate::studies::read_case(
            crate::method::MethodKind::Mmap,
            crate::pattern::Pattern::RandomReplace,
            4096,
            1 << 20,
            WorkloadKind::Sum,
            crate::plan::CacheState::Cold,
        );
        assert_eq!(refusal(&case), None, "no duration: nothing to refuse");
        case.duration_s = Some(2);
        assert!(refusal(&case).unwrap().contains("touch"));
        case.workload = WorkloadKind::Touch;
        assert_eq!(refusal(&case), None);
        // A short last block would not add up to reads x block size.
        case.file_size += 1;
        assert!(refusal(&case)
            .unwrap()
            .contains("whole number of 4096 B blocks"));
    }
}
