//! getrusage(RUSAGE_SELF) snapshots and their deltas.
use crate::sample::Counters;

/// A raw getrusage() reading.
#[derive(Clone, Copy, Debug)]
pub struct RusageSnapshot {
    counters: Counters,
    max_rss_kib: u64,
}

/// Reads getrusage(RUSAGE_SELF) for this process.
pub fn snapshot() -> RusageSnapshot {
    todo!("measure helper")
}

impl RusageSnapshot {
    /// Counters accumulated since `earlier`.
    pub fn delta_since(&self, earlier: &RusageSnapshot) -> Counters {
        let _ = (earlier, self.counters);
        todo!("measure helper")
    }

    /// Peak resident set size so far, KiB.
    pub fn max_rss_kib(&self) -> u64 {
        self.max_rss_kib
    }
}
