//! Duration-bounded trials (`Case::duration_s`, `run --duration`): N workers
//! read for a fixed number of seconds while a sampler records a per-second
//! [`crate::measure::timeline`]. This is the shape of the CIDR 2022 mmap
//! study's benchmark (`crotty2022`), whose point is how throughput changes
//! over time as the page cache fills, made general: any read method, any
//! pattern or trace, with or without a memory budget.
//!
//! - Each worker has its own method (its own descriptor) and takes its
//!   visits from its own [`Stream`] of the case's pattern: a sampled
//!   pattern keeps drawing from its law, a one-pass order (or a trace)
//!   repeats from the worker's share of it, a chase walks on (see
//!   [`crate::pattern::stream`]). It takes them in chunks of [`chunk_reads`]
//!   reads, between which it publishes its count and checks the stop flag.
//!   Generating a chunk is inside the loop (the number of reads is not known
//!   in advance); it costs nanoseconds against microseconds per read, the
//!   same for every method. The case's thread mode does not apply: the
//!   workers share no order.
//! - A chase's chunk is read through a wrapper of the workload that follows
//!   the walk (so the next chunk starts where this one stopped, and a method
//!   that strays from the path fails the trial) and counts the blocks it
//!   visits: one extra call and hash per block, for chase only.
//! - The mapping methods map the file once and every worker reads that one
//!   mapping, as a program's threads (and the study's benchmark) do: one
//!   set of page tables, so evicting a page must shoot down the entry in
//!   every CPU's TLB that runs a worker.
//! - Setup (mapping, advice, `--fadvise`) happens before the workers are
//!   released and is reported as setup time; the main loop runs from the
//!   release until the last worker stops, just after the sampler's last tick.
//! - Only `touch` is allowed, so that the checksum can be checked without
//!   re-reading: after the clock stops, every worker's stream is replayed
//!   for its number of reads, giving the bytes it should have delivered and
//!   the blocks it touched (the footprint), and, when the file is a
//!   generated one (`content_seed`), each touched byte's expected value is
//!   recomputed from the generator; a difference fails the trial. The
//!   trial's checksum is the wrapping sum of the workers' (as
//!   `--thread-mode split`).
use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::files::dataset::GeneratedContent;
use crate::measure::timeline::{
    bucket, own_read_bytes, read_number, tlb_shootdowns, OpCounters, Reading,
};
use crate::measure::{device, CounterReading};
use crate::method::{LoopCounts, Method, MethodKind, MmapMethod, Untimed};
use crate::pattern::chase::{chase_word, Chase};
use crate::pattern::stream::{Source, Stream};
use crate::pattern::{BlockOrder, Footprint, Layout, Tally};
use crate::plan::Case;
use crate::results::ChildReport;
use crate::workload::Workload;

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

pub use crate::plan::duration::refusal;

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

/// The unit a case's footprint is counted in: its block, or a page for a
/// trace (whose reads have any offset and length).
pub fn footprint_unit(case: &Case, page_size: usize) -> u64 {
    if case.trace.is_some() {
        page_size.max(1) as u64
    } else {
        case.block_size
    }
}

/// The workload as a worker sees it while reading a chase's chunk: it
/// follows the walk block by block (so the next chunk starts where this one
/// stopped), notes a method that strays from the path, and counts the
/// blocks visited.
struct Walker<'a> {
    inner: &'a mut dyn Workload,
    layout: Layout,
    walk: Chase,
    tally: &'a mut Tally,
    strayed: Option<u64>,
}

impl Workload for Walker<'_> {
    fn consume(&mut self, offset: u64, data: &[u8]) {
        self.inner.consume(offset, data);
        let (expected, _) = self.layout.block(self.walk.current());
        if offset != expected && self.strayed.is_none() {
            self.strayed = Some(offset);
        }
        self.tally.add_extent(offset, data.len() as u64);
        self.walk.next_word(chase_word(data));
    }

    fn checksum(&self) -> u64 {
        self.inner.checksum()
    }
}

/// What one worker did.
struct WorkerRun {
    reads: u64,
    checksum: u64,
    counts: LoopCounts,
    start: Instant,
    end: Instant,
    /// The blocks a chase visited (other streams are replayed afterwards).
    walked: Option<Tally>,
}

/// Reads chunks of `stream` with `method` until `stop` is set; returns the
/// reads made, the loop's counts and, for a chase, the blocks it visited.
fn read_until_stopped(
    method: &mut dyn Method,
    workload: &mut dyn Workload,
    stream: &mut Stream,
    chunk: usize,
    layout: Layout,
    unit: u64,
    progress: (&OpCounters, usize, &AtomicBool),
) -> Result<(u64, LoopCounts, Option<Tally>)> {
    let (counters, w, stop) = progress;
    let mut order = BlockOrder::Listed(Vec::with_capacity(chunk));
    let mut walked = stream.is_walk().then(|| Tally::new(layout, unit));
    let mut reads = 0u64;
    let mut counts = LoopCounts::default();
    while !stop.load(Ordering::Relaxed) {
        stream.fill(&mut order, chunk);
        let c = match (&mut walked, &order) {
            (Some(tally), BlockOrder::Chase(spec)) => {
                let mut walker = Walker {
                    inner: &mut *workload,
                    layout,
                    walk: spec.start,
                    tally,
                    strayed: None,
                };
                let c = method.run(&order, &mut walker)?;
                if let Some(offset) = walker.strayed {
                    return Err(Error::Trial(format!(
                        "the method read offset {offset}, off the chase's path"
                    )));
                }
                stream.set_walk(walker.walk);
                c
            }
            _ => method.run(&order, workload)?,
        };
        counts.bytes += c.bytes;
        counts.syscalls += c.syscalls;
        reads += chunk as u64;
        counters.add(w, chunk as u64);
    }
    Ok((reads, counts, walked))
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
    // Built before any clock starts: the law, the one-pass order, or a trace.
    let source = Source::new(case.pattern, layout, case.seed, || case.block_order())?;
    let unit = footprint_unit(case, page_size);
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
        own_read_bytes: own_read_bytes(),
        cgroup_bytes: inputs.cgroup_usage.and_then(read_number),
    };

    let (t0, readings, results) = std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .into_iter()
            .enumerate()
            .zip(sharers.drain(..))
            .map(|((w, file), sharer)| {
                let (barrier, counters, stop, failed) = (&barrier, &counters, &stop, &failed);
                let source = &source;
                scope.spawn(move || -> Result<WorkerRun> {
                    let mut method: Box<dyn Method> = match sharer {
                        Some(m) => Box::new(m),
                        None => case.build_method(file, layout, Box::new(Untimed)),
                    };
                    let mut workload = case.build_workload(page_size);
                    let mut stream = source.stream(w, workers, case.seed);
                    let set_up = method.setup();
                    if set_up.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    barrier.wait();
                    set_up?;
                    let start = Instant::now();
                    let read = read_until_stopped(
                        method.as_mut(),
                        workload.as_mut(),
                        &mut stream,
                        chunk_reads(case),
                        layout,
                        unit,
                        (counters, w, stop),
                    );
                    let (reads, counts, walked) = match read {
                        Ok(r) => r,
                        Err(e) => {
                            failed.store(true, Ordering::Relaxed);
                            return Err(e);
                        }
                    };
                    let end = Instant::now();
                    method.teardown()?;
                    let checksum = std::hint::black_box(workload.checksum());
                    Ok(WorkerRun {
                        reads,
                        checksum,
                        counts,
                        start,
                        end,
                        walked,
                    })
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
        let results: Vec<Result<WorkerRun>> = handles
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
    let mut tally = Tally::new(layout, unit);
    for result in results {
        let run = result?;
        report
            .thread_ns
            .push((run.end - run.start).as_nanos() as u64);
        last_end = last_end.max(run.end);
        checksum = checksum.wrapping_add(run.checksum);
        report.bytes += run.counts.bytes;
        report.syscalls += run.counts.syscalls;
        reads_per_worker.push(run.reads);
        if let Some(walked) = run.walked {
            tally.merge(&walked);
        }
    }
    if workers == 1 {
        report.thread_ns.clear();
    }
    // Outside every clock: what the streams should have delivered.
    let replay = Replay::new(&source, case, layout, page_size, chunk_reads(case));
    let expected = replay.run(&reads_per_worker, inputs.content_seed, &mut tally);
    if report.bytes != expected.bytes {
        return Err(Error::Trial(format!(
            "{} delivered {} bytes for {} reads, expected {}",
            case.method,
            report.bytes,
            reads_per_worker.iter().sum::<u64>(),
            expected.bytes
        )));
    }
    if let Some(expected) = expected.checksum {
        if expected != checksum {
            return Err(Error::Trial(format!(
                "{} touched bytes that sum to {checksum:#x}, but the generated file holds {expected:#x} there",
                case.method
            )));
        }
    }
    report.footprint = Some(tally.footprint());
    report.ops = reads_per_worker.iter().sum();
    report.wall_ns = (last_end - t0).as_nanos() as u64;
    report.teardown_ns = (joined - last_end).as_nanos() as u64;
    report.checksum = checksum;
    report.timeline = bucket(&readings);
    Ok(report)
}

/// What the workers' streams should have delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    /// Bytes.
    pub bytes: u64,
    /// The touch checksum, when the file's content is known (a generated file).
    pub checksum: Option<u64>,
}

/// Replays the workers' streams after a timed trial, outside every clock.
pub struct Replay<'a> {
    source: &'a Source,
    case: &'a Case,
    layout: Layout,
    page_size: usize,
    chunk: usize,
}

impl<'a> Replay<'a> {
    /// The replay of `case`'s streams from `source`, taken `chunk` reads at a time.
    pub fn new(
        source: &'a Source,
        case: &'a Case,
        layout: Layout,
        page_size: usize,
        chunk: usize,
    ) -> Replay<'a> {
        Replay {
            source,
            case,
            layout,
            page_size: page_size.max(1),
            chunk: chunk.max(1),
        }
    }

    /// Replays each worker's stream for its number of reads: the bytes they
    /// deliver, the blocks they touch (added to `tally`; a chase's were
    /// counted by its walker), and, when `content_seed` is known, the touch
    /// checksum recomputed from the generator. A chase on a file whose
    /// content is not known cannot be replayed (its path depends on the
    /// bytes): its bytes are its reads times the block.
    pub fn run(
        &self,
        reads_per_worker: &[u64],
        content_seed: Option<u64>,
        tally: &mut Tally,
    ) -> Expected {
        let workers = reads_per_worker.len();
        let mut content = content_seed.map(GeneratedContent::new);
        let walk = matches!(self.source, Source::Walk(_));
        if walk && content.is_none() {
            let block = self.layout.block(0).1 as u64;
            return Expected {
                bytes: reads_per_worker.iter().sum::<u64>() * block,
                checksum: None,
            };
        }
        let mut bytes = 0u64;
        let mut sum = 0u64;
        let mut order = BlockOrder::Listed(Vec::new());
        let mut word = [0u8; 8];
        for (w, &reads) in reads_per_worker.iter().enumerate() {
            let mut stream = self.source.stream(w, workers, self.case.seed);
            let mut left = reads;
            while left > 0 {
                let n = (self.chunk as u64).min(left) as usize;
                stream.fill(&mut order, n);
                if !walk {
                    tally.add_order(&order);
                }
                let mut at = match &order {
                    BlockOrder::Chase(spec) => spec.start,
                    _ => Chase::new(self.layout, 0),
                };
                let _ = order.for_each_read(self.layout, |offset, len| {
                    bytes += len as u64;
                    let Some(content) = content.as_mut() else {
                        return Ok::<u64, ()>(0);
                    };
                    let mut step = 0;
                    while step < len {
                        sum = sum.wrapping_add(u64::from(content.byte(offset + step as u64)));
                        step += self.page_size;
                    }
                    if !walk {
                        return Ok(0);
                    }
                    let n = len.min(8);
                    content.read(offset, &mut word[..n]);
                    let next = chase_word(&word[..n]);
                    at.next_word(next);
                    Ok(next)
                });
                stream.set_walk(at);
                left -= n as u64;
            }
        }
        Expected {
            bytes,
            checksum: content.map(|_| sum),
        }
    }
}

/// The footprint of a plain trial's chase, walked again after the trial:
/// `read(offset, out)` gives the first bytes of a block (from the generator
/// of a generated file, or read from the file).
pub fn chase_footprint(
    spec: &crate::pattern::chase::ChaseSpec,
    layout: Layout,
    mut read: impl FnMut(u64, &mut [u8]) -> std::io::Result<()>,
) -> std::io::Result<Footprint> {
    let mut walk = spec.start;
    let mut tally = Tally::new(layout, layout.block_size);
    let mut word = [0u8; 8];
    for _ in 0..spec.steps {
        let (offset, len) = layout.block(walk.current());
        tally.add_extent(offset, len as u64);
        let n = len.min(8);
        read(offset, &mut word[..n])?;
        walk.next(&word[..n]);
    }
    Ok(tally.footprint())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::CacheState;
    use crate::workload::WorkloadKind;

    fn case(pattern: &str, size: u64) -> Case {
        let mut case = crate::studies::read_case(
            MethodKind::Pread,
            pattern.parse().unwrap(),
            4096,
            size,
            WorkloadKind::Touch,
            CacheState::Cold,
        );
        case.duration_s = Some(1);
        case
    }

    #[test]
    fn the_replay_of_random_replace_is_what_the_timed_trials_always_checked() {
        let size = 64 * 4096u64;
        let mut file = Vec::new();
        crate::files::dataset::write_content(&mut file, size, 7).unwrap();
        let case = case("random-replace", size);
        let layout = case.layout();
        // By hand, as before streams existed: worker w's stream, first byte of each block.
        let mut by_hand = 0u64;
        for (w, reads) in [(0usize, 10u64), (1, 3)] {
            use rand::{RngExt, SeedableRng};
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(
                case.seed ^ (w as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            );
            for _ in 0..reads {
                let b = rng.random_range(0..64u32) as usize;
                by_hand = by_hand.wrapping_add(u64::from(file[b * 4096]));
            }
        }
        let source = Source::new(case.pattern, layout, case.seed, || case.block_order()).unwrap();
        let replay = Replay::new(&source, &case, layout, 4096, 1);
        let mut tally = Tally::new(layout, 4096);
        let expected = replay.run(&[10, 3], Some(7), &mut tally);
        assert_eq!(expected.checksum, Some(by_hand));
        assert_eq!(expected.bytes, 13 * 4096);
        assert!(tally.footprint().distinct <= 13);
        let mut tally = Tally::new(layout, 4096);
        assert_ne!(
            replay.run(&[10, 4], Some(7), &mut tally).checksum,
            Some(by_hand)
        );
    }

    #[test]
    fn the_replay_of_a_chase_follows_the_generated_bytes() {
        let size = 64 * 4096u64;
        let mut file = Vec::new();
        crate::files::dataset::write_content(&mut file, size, 3).unwrap();
        let case = case("chase", size);
        let layout = case.layout();
        let source = Source::new(case.pattern, layout, case.seed, || case.block_order()).unwrap();
        let replay = Replay::new(&source, &case, layout, 4096, 1);
        let mut tally = Tally::new(layout, 4096);
        let expected = replay.run(&[20], Some(3), &mut tally);
        let path =
            crate::pattern::chase::chase_path(std::io::Cursor::new(&file), layout, case.seed, 20)
                .unwrap();
        let by_hand = path.iter().fold(0u64, |sum, &b| {
            sum.wrapping_add(u64::from(file[(b * 4096) as usize]))
        });
        assert_eq!(expected.checksum, Some(by_hand));
        assert_eq!(expected.bytes, 20 * 4096);
        // Without the content, only the bytes can be told.
        let unknown = replay.run(&[20], None, &mut tally);
        assert_eq!((unknown.bytes, unknown.checksum), (20 * 4096, None));
        // The plain trial's footprint walks the same path.
        let BlockOrder::Chase(spec) = case.block_order().unwrap() else {
            panic!()
        };
        let f = chase_footprint(&spec, layout, |offset, out| {
            out.copy_from_slice(&file[offset as usize..offset as usize + out.len()]);
            Ok(())
        })
        .unwrap();
        let mut distinct = path.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let first_20 = crate::pattern::chase::ChaseSpec { steps: 20, ..spec };
        let f20 = chase_footprint(&first_20, layout, |offset, out| {
            out.copy_from_slice(&file[offset as usize..offset as usize + out.len()]);
            Ok(())
        })
        .unwrap();
        assert_eq!(f20.distinct, distinct.len() as u64);
        assert_eq!((f.units, f20.units), (64, 64));
    }

    #[test]
    fn an_io_uring_chunk_holds_32_reads_per_request_in_flight() {
        let mut case = case("random-replace", 1 << 20);
        case.method = MethodKind::Uring;
        case.io.depth = Some(8);
        assert_eq!(chunk_reads(&case), 256);
        case.method = MethodKind::Pread;
        case.io.depth = None;
        assert_eq!(
            chunk_reads(&case),
            1,
            "one read at a time: counted when it completes"
        );
    }
}
