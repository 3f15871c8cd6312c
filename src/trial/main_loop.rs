//! The main loop of a plain trial: the method delivers every block to the
//! workload, and with `--latency` each operation is timed.
//!
//! An operation is one block handed to the workload: for read-style methods
//! the system call(s) that fetched it plus the workload's pass over it; for
//! `mmap`, one block's worth of access through the mapping, faults
//! included. Methods never read clocks, so the time is taken by a wrapper
//! around the workload ([`run_main_loop`]): each `consume` is timed from
//! the end of the previous one to its own end, which covers everything the
//! method did to produce the block, with one clock read per operation.
//!
//! Without `--latency` the wrapper is not in the call chain at all: the
//! method calls the workload directly, exactly as before, and no clock is
//! read per operation. The choice between the two is made once, outside
//! the loop.
//!
//! What the numbers mean per method: for `uring` at depth N and `preadv`
//! with N blocks per call, they are the gaps between blocks as the program
//! receives them, not the device's service time of one request (the first
//! block of a `preadv` call carries the call; a `uring` block that waited
//! in the reorder ring arrives right after the one it waited for). For
//! `stdio`, the block that refills the buffer carries the read(). For the
//! write methods an operation runs from one `produce` to the next (the
//! block's bytes made, then written), and the last ends when the loop does.
//!
//! With a pace (`--rate`, `--think-time`, [`crate::plan::pace`]) the same
//! wrapper waits between operations: operation `k` starts no earlier than
//! `k` rate intervals after the first, and no earlier than the think time
//! after the one before ended. The wait is in the loop's time (it is part
//! of the load) and in no operation's latency: each is timed from its own
//! start, after the wait. The wait is a sleep, so it overshoots by the
//! timer slack (tens of µs); a late operation starts at once.
use std::time::{Duration, Instant};

use crate::error::Result;
use crate::measure::latency::Recorder;
use crate::method::{LoopCounts, Method};
use crate::pattern::BlockOrder;
use crate::plan::pace::Pace;
use crate::workload::Workload;

/// When each operation may start (`--rate`, `--think-time`).
pub struct Pacer {
    start: Instant,
    interval: Option<Duration>,
    think: Option<Duration>,
}

impl Pacer {
    /// A pacer for blocks of `block_size` bytes, its schedule starting now.
    pub fn new(pace: Pace, block_size: u64) -> Pacer {
        Pacer {
            start: Instant::now(),
            interval: pace
                .rate
                .map(|r| Duration::from_nanos(r.interval_ns(block_size))),
            think: pace.think_ns.map(Duration::from_nanos),
        }
    }

    /// Waits until operation `k` (counted from 0) may start, the one before
    /// it having ended at `ended`.
    fn wait_for(&self, k: u64, ended: Instant) {
        let by_rate = self.interval.and_then(|i| {
            let ns = u64::try_from(i.as_nanos() * u128::from(k)).unwrap_or(u64::MAX);
            self.start.checked_add(Duration::from_nanos(ns))
        });
        let by_think = self.think.map(|t| ended + t);
        if let Some(deadline) = by_rate.max(by_think) {
            let now = Instant::now();
            if deadline > now {
                std::thread::sleep(deadline - now);
            }
        }
    }
}

/// The workload as the method sees it when latency is recorded or the
/// load is paced.
struct Timed<'a> {
    inner: &'a mut dyn Workload,
    recorder: Option<&'a mut Recorder>,
    pacer: Option<Pacer>,
    /// Where the operation under way started.
    last: Instant,
    /// Operations ended.
    done: u64,
    /// Operations in the order: no wait after the last.
    ops: u64,
    /// A write method's operation is under way (its block produced, its
    /// write not yet known to have ended).
    writing: bool,
}

impl Timed<'_> {
    /// Ends the operation under way: records its time.
    #[inline]
    fn end(&mut self) -> Instant {
        let now = Instant::now();
        if let Some(r) = self.recorder.as_deref_mut() {
            r.record(now.duration_since(self.last).as_nanos() as u64);
        }
        self.done += 1;
        self.last = now;
        now
    }

    /// Starts the next operation: waits for the pace, if any.
    #[inline]
    fn start(&mut self, ended: Instant) {
        if let Some(p) = &self.pacer {
            if self.done < self.ops {
                p.wait_for(self.done, ended);
                self.last = Instant::now();
            }
        }
    }
}

impl Workload for Timed<'_> {
    #[inline]
    fn consume(&mut self, offset: u64, data: &[u8]) {
        self.inner.consume(offset, data);
        let ended = self.end();
        self.start(ended);
    }

    #[inline]
    fn produce(&mut self, offset: u64, out: &mut [u8]) {
        if self.writing {
            let ended = self.end();
            self.start(ended);
        }
        self.writing = true;
        self.inner.produce(offset, out);
    }

    #[inline]
    fn wrote(&mut self, offset: u64, len: usize) {
        self.inner.wrote(offset, len);
        let ended = self.end();
        self.start(ended);
    }

    fn checksum(&self) -> u64 {
        self.inner.checksum()
    }
}

/// Runs the method's main loop, recording each operation's latency into
/// `recorder` when there is one and waiting between operations as `pacer`
/// says; without either, the method gets the workload itself and no clock
/// is read per operation.
pub fn run_main_loop(
    method: &mut dyn Method,
    order: &BlockOrder,
    workload: &mut dyn Workload,
    recorder: Option<&mut Recorder>,
    pacer: Option<Pacer>,
) -> Result<LoopCounts> {
    if recorder.is_none() && pacer.is_none() {
        return method.run(order, workload);
    }
    let mut timed = Timed {
        inner: workload,
        recorder,
        pacer,
        last: Instant::now(),
        done: 0,
        ops: order.len(),
        writing: false,
    };
    let counts = method.run(order, &mut timed)?;
    if timed.writing {
        timed.end(); // the last write
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::latency::Recorder;

    /// A method that hands out three blocks.
    struct Three;
    impl Method for Three {
        fn setup(&mut self) -> Result<()> {
            Ok(())
        }
        fn run(&mut self, _: &BlockOrder, w: &mut dyn Workload) -> Result<LoopCounts> {
            for i in 0..3u64 {
                w.consume(i, &[1, 2, 3]);
            }
            Ok(LoopCounts {
                syscalls: 0,
                bytes: 9,
                written: 0,
            })
        }
        fn teardown(&mut self) -> Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_wrapper_times_every_block_and_changes_nothing_else() {
        let order = BlockOrder::Sequential { count: 3 };
        let mut plain = crate::workload::Sum::default();
        let a = run_main_loop(&mut Three, &order, &mut plain, None, None).unwrap();
        let mut timed = crate::workload::Sum::default();
        let mut recorder = Recorder::new();
        let b = run_main_loop(&mut Three, &order, &mut timed, Some(&mut recorder), None).unwrap();
        assert_eq!(a, b);
        assert_eq!(plain.checksum(), timed.checksum());
        assert_eq!(plain.checksum(), 18);
        assert_eq!(recorder.percentiles().unwrap().ops, 3);
    }

    fn fill_workload() -> Box<dyn Workload> {
        crate::workload::WorkloadKind::Fill.build(&crate::workload::WorkloadConfig {
            page_size: 4096,
            fill: None,
            scale: None,
            unit: None,
        })
    }

    /// A write method that produces `n` blocks.
    struct Writes(u64);
    impl Method for Writes {
        fn setup(&mut self) -> Result<()> {
            Ok(())
        }
        fn run(&mut self, _: &BlockOrder, w: &mut dyn Workload) -> Result<LoopCounts> {
            let mut block = [0u8; 8];
            for i in 0..self.0 {
                w.produce(i * 8, &mut block);
            }
            Ok(LoopCounts {
                syscalls: self.0,
                bytes: 8 * self.0,
                written: 0,
            })
        }
        fn teardown(&mut self) -> Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_write_methods_operations_are_timed_from_produce_to_produce() {
        let order = BlockOrder::Sequential { count: 5 };
        let mut fill = fill_workload();
        let mut recorder = Recorder::new();
        run_main_loop(
            &mut Writes(5),
            &order,
            fill.as_mut(),
            Some(&mut recorder),
            None,
        )
        .unwrap();
        assert_eq!(recorder.percentiles().unwrap().ops, 5, "the last one too");
    }

    #[test]
    fn a_paced_loop_waits_between_operations_and_not_after_the_last() {
        use crate::plan::pace::{Pace, Rate};
        // 1000 operations per second: 20 operations start over at least 19 ms
        // (a sleep never ends early; how much later it ends, load decides).
        let order = BlockOrder::Sequential { count: 20 };
        let rate = Pace {
            rate: Some(Rate::OpsPerS(1000)),
            think_ns: None,
        };
        let mut recorder = Recorder::new();
        let mut fill = fill_workload();
        let start = Instant::now();
        let pacer = Some(Pacer::new(rate, 4096));
        run_main_loop(
            &mut Writes(20),
            &order,
            fill.as_mut(),
            Some(&mut recorder),
            pacer,
        )
        .unwrap();
        assert!(start.elapsed() >= Duration::from_millis(19));
        assert_eq!(recorder.percentiles().unwrap().ops, 20);
        // A think time of 2 ms after each of 3 reads: at least 4 ms, none after the last.
        let think = Pace {
            rate: None,
            think_ns: Some(2_000_000),
        };
        let order = BlockOrder::Sequential { count: 3 };
        let start = Instant::now();
        let mut plain = crate::workload::Sum::default();
        let pacer = Some(Pacer::new(think, 4096));
        run_main_loop(&mut Three, &order, &mut plain, None, pacer).unwrap();
        assert!(start.elapsed() >= Duration::from_millis(4));
        assert_eq!(plain.checksum(), 18);
    }
}
