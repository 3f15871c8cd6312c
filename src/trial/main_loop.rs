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
//! `stdio`, the block that refills the buffer carries the read().
use std::time::Instant;

use crate::error::Result;
use crate::measure::latency::Recorder;
use crate::method::{LoopCounts, Method};
use crate::pattern::BlockOrder;
use crate::workload::Workload;

/// The workload as the method sees it when latency is recorded.
struct Timed<'a> {
    inner: &'a mut dyn Workload,
    recorder: &'a mut Recorder,
    last: Instant,
}

impl Workload for Timed<'_> {
    #[inline]
    fn consume(&mut self, offset: u64, data: &[u8]) {
        self.inner.consume(offset, data);
        let now = Instant::now();
        self.recorder
            .record(now.duration_since(self.last).as_nanos() as u64);
        self.last = now;
    }

    fn checksum(&self) -> u64 {
        self.inner.checksum()
    }
}

/// Runs the method's main loop, recording each operation's latency into
/// `recorder` when there is one; without one, the method gets the workload
/// itself and no clock is read per operation.
pub fn run_main_loop(
    method: &mut dyn Method,
    order: &BlockOrder,
    workload: &mut dyn Workload,
    recorder: Option<&mut Recorder>,
) -> Result<LoopCounts> {
    match recorder {
        None => method.run(order, workload),
        Some(recorder) => {
            let mut timed = Timed {
                inner: workload,
                recorder,
                last: Instant::now(),
            };
            method.run(order, &mut timed)
        }
    }
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
        let a = run_main_loop(&mut Three, &order, &mut plain, None).unwrap();
        let mut timed = crate::workload::Sum::default();
        let mut recorder = Recorder::new();
        let b = run_main_loop(&mut Three, &order, &mut timed, Some(&mut recorder)).unwrap();
        assert_eq!(a, b);
        assert_eq!(plain.checksum(), timed.checksum());
        assert_eq!(plain.checksum(), 18);
        assert_eq!(recorder.percentiles().unwrap().ops, 3);
    }
}
