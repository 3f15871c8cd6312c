//! Threads inside one trial (`--threads N --thread-mode split|replicate`).
//!
//! Each thread has its own method (built with its own file descriptor, so a
//! `read` cursor is never shared; a mapping method maps the file once per
//! thread: N mappings of the same page-cache pages) and its own workload.
//! Everything fallible that can be done before the start (opening the N
//! descriptors) is done before the threads start, so that no thread waits on
//! the barrier for a sibling that already failed.
//!
//! All threads wait on one [`Barrier`]; the trial's time runs from the
//! barrier's release (the first thread to read the clock after it) to the
//! last thread's finish, so it is never less than any thread's own time.
//! Each thread's own time covers its setup, main loop and teardown (as the
//! 2002 study timed get-the-bytes, scale, free), so a threaded trial reports
//! all of it as its main-loop time (`wall_ns`) and 0 for setup and teardown.
//!
//! - **split**: the threads share the blocks of the order. Thread t takes the
//!   t-th of N contiguous chunks of the order (positions
//!   `t·len/N .. (t+1)·len/N`), so every visit of the order is made exactly
//!   once. A chunk is a listed order (of blocks, or of a trace's extents),
//!   so a cursor method (`read`) seeks where a chunk starts and wherever its
//!   order jumps. A `chase` is one dependent walk and cannot be split.
//!   Only workloads whose checksum is a wrapping sum
//!   (`touch`, `sum`) are allowed: the combined checksum (the wrapping sum of
//!   the threads' checksums) then equals the one-thread checksum. Order-
//!   dependent digests, one-block `scale` and write methods are refused.
//! - **replicate**: every thread runs the whole order on its own (the 2002
//!   study's 10 threads). Every thread's checksum must equal every other's;
//!   the trial's checksum is that one value, so it equals the one-thread
//!   checksum. Bytes are the sum over threads.
use std::fs::File;
use std::sync::Barrier;
use std::time::Instant;

use crate::error::{Error, Result};
use crate::method::Untimed;
use crate::pattern::BlockOrder;
use crate::plan::refusal::threaded as refusal;
use crate::plan::{Case, ThreadMode};

/// The contiguous chunks of `order` for `parts` threads: chunk t holds the
/// visits at positions `t·len/parts .. (t+1)·len/parts`. Every visit lands in
/// exactly one chunk; a chunk may be empty when there are fewer visits than threads.
/// [`crate::plan::refusal::threaded`] keeps the block indices within `u32`
/// and refuses to split a chase, which is an error here too.
pub fn split(order: &BlockOrder, parts: usize) -> Result<Vec<BlockOrder>> {
    let parts = parts.max(1);
    fn chunks<T: Clone>(v: &[T], parts: usize) -> impl Iterator<Item = Vec<T>> + '_ {
        let len = v.len();
        (0..parts).map(move |t| v[t * len / parts..(t + 1) * len / parts].to_vec())
    }
    Ok(match order {
        BlockOrder::Sequential { count } => {
            let count = u32::try_from(*count).map_err(|_| {
                Error::Plan("too many blocks to split between threads; use a larger --block".into())
            })?;
            let visits: Vec<u32> = (0..count).collect();
            chunks(&visits, parts).map(BlockOrder::Listed).collect()
        }
        BlockOrder::Listed(v) => chunks(v, parts).map(BlockOrder::Listed).collect(),
        BlockOrder::Extents(v) => chunks(v, parts).map(BlockOrder::Extents).collect(),
        BlockOrder::Chase(_) => {
            return Err(Error::Plan(
                "a chase is one dependent walk and cannot be split between threads; \
                 use --thread-mode replicate"
                    .into(),
            ))
        }
    })
}

/// What the threads of one trial measured.
#[derive(Clone, Debug)]
pub struct ThreadedRun {
    /// From the first thread's start after the barrier to the last thread's finish, ns.
    pub elapsed_ns: u64,
    /// Each thread's own setup + loop + teardown, ns.
    pub thread_ns: Vec<u64>,
    /// The combined checksum (see the module docs).
    pub checksum: u64,
    /// Bytes delivered over all threads.
    pub bytes: u64,
    /// I/O system calls over all threads.
    pub syscalls: u64,
    /// Operations delivered over all threads.
    pub ops: u64,
    /// The scaled image of thread 0 (`scale` only), for `--keep-output`.
    pub image: Option<(u32, u32, Vec<u8>)>,
    /// The order the threads shared (split) or each ran (replicate).
    pub order: BlockOrder,
}

/// Runs one case on its threads over the file at `path`. A `profiler`
/// (opened before the threads exist, so that it follows them) samples from
/// just before their release to their last finish.
pub fn run_on_threads(
    case: &Case,
    path: &std::path::Path,
    page_size: usize,
    profiler: Option<&crate::measure::profile::Profiler>,
) -> Result<ThreadedRun> {
    let Some(threads) = case.threads else {
        return Err(Error::Trial("a threaded trial without threads".into()));
    };
    if let Some(why) = refusal(case) {
        return Err(Error::Trial(why));
    }
    let n = threads.count.max(1) as usize;
    let (layout, order) = (case.layout(), case.block_order()?);
    let orders: Vec<BlockOrder> = match threads.mode {
        ThreadMode::Split => split(&order, n)?,
        ThreadMode::Replicate => vec![order.clone(); n],
    };
    let files = (0..n)
        .map(|_| File::open(path).map_err(|e| Error::io("open", path, e)))
        .collect::<Result<Vec<File>>>()?;
    // The threads, and this thread, which releases them.
    let barrier = Barrier::new(n + 1);
    type ThreadResult = Result<(
        (Instant, Instant),
        u64,
        crate::method::LoopCounts,
        Option<(u32, u32, Vec<u8>)>,
    )>;
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .into_iter()
            .zip(&orders)
            .map(|(file, order)| {
                let barrier = &barrier;
                scope.spawn(move || -> ThreadResult {
                    let mut method = case.build_method(file, layout, Box::new(Untimed));
                    let mut workload = case.build_workload(page_size);
                    barrier.wait();
                    let t0 = Instant::now();
                    method.setup()?;
                    let counts = method.run(order, workload.as_mut())?;
                    method.teardown()?;
                    let t1 = Instant::now();
                    if let Some(e) = workload.error() {
                        return Err(Error::Trial(e));
                    }
                    let image = workload.scaled_image().map(|(w, h, p)| (w, h, p.to_vec()));
                    let checksum = std::hint::black_box(workload.checksum());
                    Ok(((t0, t1), checksum, counts, image))
                })
            })
            .collect();
        let switched_on = crate::trial::switch_profiler(profiler, true);
        barrier.wait();
        let results = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Trial("a trial thread panicked".into())))
            })
            .collect::<Vec<ThreadResult>>();
        (switched_on, results)
    });
    let (switched_on, results) = results;
    switched_on?;
    crate::trial::switch_profiler(profiler, false)?;
    let mut run = ThreadedRun {
        elapsed_ns: 0,
        thread_ns: Vec::with_capacity(n),
        checksum: 0,
        bytes: 0,
        syscalls: 0,
        ops: orders.iter().map(BlockOrder::len).sum(),
        image: None,
        order: BlockOrder::Sequential { count: 0 },
    };
    let mut checksums = Vec::with_capacity(n);
    let mut span: Option<(Instant, Instant)> = None;
    for (t, result) in results.into_iter().enumerate() {
        let ((t0, t1), checksum, counts, image) = result?;
        run.thread_ns.push((t1 - t0).as_nanos() as u64);
        span = Some(match span {
            None => (t0, t1),
            Some((a, b)) => (a.min(t0), b.max(t1)),
        });
        checksums.push(checksum);
        run.bytes += counts.bytes;
        run.syscalls += counts.syscalls;
        if t == 0 {
            run.image = image;
        }
    }
    run.elapsed_ns = span.map_or(0, |(a, b)| (b - a).as_nanos() as u64);
    run.checksum = combine(threads.mode, &checksums)?;
    let expected = order.bytes(layout)
        * match threads.mode {
            ThreadMode::Split => 1,
            ThreadMode::Replicate => n as u64,
        };
    if run.bytes != expected {
        return Err(Error::Trial(format!(
            "{} threads delivered {} bytes, expected {expected}",
            case.method, run.bytes
        )));
    }
    run.order = order;
    Ok(run)
}

/// The trial's checksum from its threads': split adds them (wrapping);
/// replicate requires them all equal and is that value.
pub fn combine(mode: ThreadMode, checksums: &[u64]) -> Result<u64> {
    match mode {
        ThreadMode::Split => Ok(checksums.iter().fold(0u64, |a, &c| a.wrapping_add(c))),
        ThreadMode::Replicate => {
            let first = checksums.first().copied().unwrap_or(0);
            match checksums.iter().position(|&c| c != first) {
                None => Ok(first),
                Some(t) => Err(Error::Trial(format!(
                    "thread {t}'s checksum {:#x} differs from thread 0's {first:#x}: \
                     the threads did not see the same bytes",
                    checksums[t]
                ))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Layout;
    use crate::pattern::Pattern;

    fn visits(order: &BlockOrder) -> Vec<u64> {
        let layout = Layout {
            file_size: u64::MAX,
            block_size: 1,
        };
        let mut v = Vec::new();
        let _ = order.for_each_read(layout, |offset, _| {
            v.push(offset);
            Ok::<u64, ()>(0)
        });
        v
    }

    #[test]
    fn split_covers_every_visit_exactly_once_in_order() {
        for pattern in [Pattern::Seq, Pattern::Random, Pattern::RandomReplace] {
            for blocks in [1u64, 2, 7, 64, 1000] {
                let layout = Layout {
                    file_size: blocks * 4096,
                    block_size: 4096,
                };
                let order = BlockOrder::new(pattern, layout, 7).unwrap();
                for parts in [1usize, 2, 3, 4, 10, 2000] {
                    let chunks = split(&order, parts).unwrap();
                    assert_eq!(chunks.len(), parts);
                    let joined: Vec<u64> = chunks.iter().flat_map(visits).collect();
                    assert_eq!(
                        joined,
                        visits(&order),
                        "{pattern} {blocks} blocks / {parts}"
                    );
                    let sizes: Vec<u64> = chunks.iter().map(|c| c.len()).collect();
                    let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                    assert!(hi - lo <= 1, "balanced: {sizes:?}");
                    let bytes: u64 = chunks.iter().map(|c| c.bytes(layout)).sum();
                    assert_eq!(bytes, order.bytes(layout));
                }
            }
        }
    }

    #[test]
    fn extents_split_as_extents_and_a_chase_is_not_split() {
        use crate::pattern::Extent;
        let extents: Vec<Extent> = (0..7)
            .map(|i| Extent {
                offset: i * 10,
                len: 3,
            })
            .collect();
        let chunks = split(&BlockOrder::Extents(extents.clone()), 3).unwrap();
        let joined: Vec<Extent> = chunks
            .iter()
            .flat_map(|c| match c {
                BlockOrder::Extents(v) => v.clone(),
                _ => panic!("extents stay extents"),
            })
            .collect();
        assert_eq!(joined, extents);
        let layout = Layout {
            file_size: 1 << 20,
            block_size: 4096,
        };
        let chase = BlockOrder::new(Pattern::Chase, layout, 1).unwrap();
        let err = split(&chase, 2).unwrap_err().to_string();
        assert!(err.contains("--thread-mode replicate"), "{err}");
    }

    #[test]
    fn split_checksums_add_up_and_replicate_checksums_must_agree() {
        assert_eq!(combine(ThreadMode::Split, &[u64::MAX, 2]).unwrap(), 1);
        assert_eq!(combine(ThreadMode::Replicate, &[5, 5, 5]).unwrap(), 5);
        let err = combine(ThreadMode::Replicate, &[5, 6])
            .unwrap_err()
            .to_string();
        assert!(err.contains("thread 1"), "{err}");
    }

    #[test]
    fn split_sum_equals_one_thread_sum() {
        use crate::workload::{Sum, Workload};
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 + 3) as u8).collect();
        let layout = Layout {
            file_size: data.len() as u64,
            block_size: 333,
        };
        let order = BlockOrder::new(Pattern::Random, layout, 3).unwrap();
        let sum_of = |order: &BlockOrder| {
            let mut w = Sum::default();
            let _ = order.for_each_read(layout, |off, len| {
                w.consume(off, &data[off as usize..off as usize + len]);
                Ok::<u64, ()>(0)
            });
            w.checksum()
        };
        let parts: Vec<u64> = split(&order, 3).unwrap().iter().map(sum_of).collect();
        assert_eq!(combine(ThreadMode::Split, &parts).unwrap(), sum_of(&order));
    }
}
