//! Per-operation latency, recorded only when asked for (`--latency`): an
//! HdrHistogram of operation times and its percentiles. The trial decides
//! what an operation is and reads the clock ([`crate::trial::main_loop`]).
//!
//! Values go into an HdrHistogram with 3 significant digits (so each
//! percentile is within 0.1% of the recorded value) from 1 ns to one minute;
//! longer operations count as one minute, and the exact maximum is kept
//! apart.
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// The longest operation the histogram tells apart, ns.
pub const MAX_TRACKED_NS: u64 = 60_000_000_000;

/// Latency percentiles of one trial's operations, ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencyPercentiles {
    /// Operations recorded.
    pub ops: u64,
    /// Median.
    pub p50_ns: u64,
    /// 90th percentile.
    pub p90_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p999_ns: u64,
    /// The longest operation (exact).
    pub max_ns: u64,
}

/// A histogram of operation times.
pub struct Recorder {
    histogram: Histogram<u64>,
    max_ns: u64,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

impl Recorder {
    /// An empty recorder whose memory is already touched, so recording
    /// takes no page fault inside the main loop.
    pub fn new() -> Recorder {
        let mut histogram =
            Histogram::new_with_bounds(1, MAX_TRACKED_NS, 3).expect("valid histogram bounds");
        // Writes every counter, faulting the pages in now.
        histogram.reset();
        Recorder {
            histogram,
            max_ns: 0,
        }
    }

    /// Records one operation of `ns` nanoseconds.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.histogram.saturating_record(ns.max(1));
        self.max_ns = self.max_ns.max(ns);
    }

    /// The percentiles, or `None` when nothing was recorded.
    pub fn percentiles(&self) -> Option<LatencyPercentiles> {
        let h = &self.histogram;
        (!h.is_empty()).then(|| LatencyPercentiles {
            ops: h.len(),
            p50_ns: h.value_at_quantile(0.5),
            p90_ns: h.value_at_quantile(0.9),
            p99_ns: h.value_at_quantile(0.99),
            p999_ns: h.value_at_quantile(0.999),
            max_ns: self.max_ns,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within HdrHistogram's precision at 3 significant digits.
    fn near(value: u64, expected: u64) -> bool {
        let tolerance = (expected / 1000).max(1);
        value.abs_diff(expected) <= tolerance
    }

    #[test]
    fn uniform_values_give_their_percentiles() {
        // 1, 2, ..., 100 000 ns once each: the q-quantile is q * 100 000.
        let mut r = Recorder::new();
        for ns in 1..=100_000 {
            r.record(ns);
        }
        let p = r.percentiles().unwrap();
        assert_eq!(p.ops, 100_000);
        assert!(near(p.p50_ns, 50_000), "{p:?}");
        assert!(near(p.p90_ns, 90_000), "{p:?}");
        assert!(near(p.p99_ns, 99_000), "{p:?}");
        assert!(near(p.p999_ns, 99_900), "{p:?}");
        assert_eq!(p.max_ns, 100_000);
    }

    #[test]
    fn a_rare_slow_operation_shows_only_in_the_tail() {
        // 9 990 cache hits of 200 ns, 9 misses of 80 µs, one stall of 5 ms.
        let mut r = Recorder::new();
        for _ in 0..9_990 {
            r.record(200);
        }
        for _ in 0..9 {
            r.record(80_000);
        }
        r.record(5_000_000);
        let p = r.percentiles().unwrap();
        assert_eq!(p.ops, 10_000);
        assert!(
            near(p.p50_ns, 200) && near(p.p90_ns, 200) && near(p.p99_ns, 200),
            "{p:?}"
        );
        // The 99.9th percentile is the 9 990th value: still a hit; the
        // 9 991st to 9 999th are the misses.
        assert!(near(p.p999_ns, 200), "{p:?}");
        assert_eq!(p.max_ns, 5_000_000);
        r.record(80_000);
        let p = r.percentiles().unwrap();
        assert!(near(p.p999_ns, 80_000), "{p:?}");
    }

    #[test]
    fn extremes_are_kept() {
        let mut r = Recorder::new();
        assert_eq!(r.percentiles(), None);
        r.record(0);
        r.record(2 * MAX_TRACKED_NS);
        let p = r.percentiles().unwrap();
        assert_eq!(p.ops, 2);
        assert_eq!(
            p.max_ns,
            2 * MAX_TRACKED_NS,
            "the exact maximum, beyond the histogram"
        );
        assert!(p.p50_ns <= 1);
    }
}
