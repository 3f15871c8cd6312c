//! How long the trial's own thread waited for a CPU: the run-queue delay
//! the scheduler keeps per thread (`/proc/thread-self/schedstat`, second
//! field, ns; present with `CONFIG_SCHED_INFO`, as on every distribution
//! kernel).
//!
//! Unlike `/proc/pressure/cpu`, which counts any task on the machine that
//! waited (a kernel worker's microseconds of queueing included), this is
//! the wait of the thread whose loop is timed: the figure the interference
//! rule judges a one-thread trial by ([`super::interference`]).
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// The trial thread's wait for a CPU over its span.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuWait {
    /// Run-queue delay of the trial's thread, ns.
    pub waited_ns: u64,
    /// The time it covers (the trial in the child, from its setup to its
    /// report), ns.
    pub span_ns: u64,
}

impl CpuWait {
    /// The share of the span the thread waited.
    pub fn share(&self) -> f64 {
        self.waited_ns as f64 / self.span_ns.max(1) as f64
    }
}

/// The calling thread's cumulative run-queue delay, ns, or `None` when the
/// kernel does not keep it.
pub fn thread_run_delay_ns() -> Option<u64> {
    parse(&std::fs::read_to_string("/proc/thread-self/schedstat").ok()?)
}

/// `schedstat`'s text: on-CPU ns, run-queue delay ns, timeslices.
fn parse(text: &str) -> Option<u64> {
    text.split_whitespace().nth(1)?.parse().ok()
}

/// A reading at the start of a span.
pub struct WaitClock {
    at: Instant,
    delay_ns: u64,
}

impl WaitClock {
    /// Starts the span now, on the calling thread.
    pub fn start() -> Option<WaitClock> {
        Some(WaitClock {
            delay_ns: thread_run_delay_ns()?,
            at: Instant::now(),
        })
    }

    /// The wait since [`WaitClock::start`], read on the same thread.
    pub fn stop(&self) -> Option<CpuWait> {
        let now = thread_run_delay_ns()?;
        Some(CpuWait {
            waited_ns: now.saturating_sub(self.delay_ns),
            span_ns: self.at.elapsed().as_nanos() as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_field_is_the_run_queue_delay() {
        assert_eq!(parse("1234 5678 9\n"), Some(5678));
        assert_eq!(parse("1234\n"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn this_thread_s_wait_is_read_and_grows_no_faster_than_time() {
        let Some(clock) = WaitClock::start() else {
            panic!("/proc/thread-self/schedstat is unreadable on this kernel");
        };
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = std::hint::black_box(x.wrapping_add(i));
        }
        let wait = clock.stop().expect("read twice");
        assert!(wait.span_ns > 0);
        assert!(wait.waited_ns <= wait.span_ns + 1_000_000, "{wait:?}");
        assert!((0.0..=1.01).contains(&wait.share()), "{wait:?}");
    }
}
