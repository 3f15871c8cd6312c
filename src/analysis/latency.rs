//! Summaries of the per-trial latency percentiles of a case.
//!
//! Each trial reports its own p50, p90, p99, p99.9 and maximum; a case
//! summarises each of them across its trials (so `p99_ns.mean` is the mean
//! of the trials' 99th percentiles, not a percentile of pooled operations,
//! and its CI says how much the p99 moves from trial to trial).

use crate::results::{LatencySummary, Sample};
use crate::stats::summary::summarize;

/// Summarises the latency of the samples that recorded it; `None` when none did.
pub fn summarize_latency(samples: &[Sample]) -> Option<LatencySummary> {
    let recorded: Vec<_> = samples.iter().filter_map(|s| s.child.latency).collect();
    let field = |f: fn(&crate::measure::latency::LatencyPercentiles) -> u64| {
        summarize(&recorded.iter().map(|p| f(p) as f64).collect::<Vec<_>>())
    };
    Some(LatencySummary {
        trials: recorded.len(),
        p50_ns: field(|p| p.p50_ns)?,
        p90_ns: field(|p| p.p90_ns)?,
        p99_ns: field(|p| p.p99_ns)?,
        p999_ns: field(|p| p.p999_ns)?,
        max_ns: field(|p| p.max_ns)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::latency::LatencyPercentiles;
    use crate::results::ChildReport;

    fn sample(latency: Option<LatencyPercentiles>) -> Sample {
        let child = ChildReport {
            latency,
            ..Default::default()
        };
        Sample {
            total_ns: 1,
            residency_source: "cachestat".into(),
            cache_prepared_by: "x".into(),
            ..Sample::new(0, 0, child)
        }
    }

    fn percentiles(p50: u64, p99: u64) -> LatencyPercentiles {
        LatencyPercentiles {
            ops: 100,
            p50_ns: p50,
            p90_ns: p50 * 2,
            p99_ns: p99,
            p999_ns: p99 * 2,
            max_ns: p99 * 10,
        }
    }

    #[test]
    fn each_percentile_is_summarised_across_the_trials_that_have_it() {
        let samples = [
            sample(Some(percentiles(1_000, 10_000))),
            sample(None),
            sample(Some(percentiles(3_000, 30_000))),
        ];
        let s = summarize_latency(&samples).unwrap();
        assert_eq!(s.trials, 2);
        assert_eq!(s.p50_ns.mean, 2_000.0);
        assert_eq!(s.p90_ns.mean, 4_000.0);
        assert_eq!(s.p99_ns.mean, 20_000.0);
        assert_eq!((s.p99_ns.min, s.p99_ns.max), (10_000.0, 30_000.0));
        assert_eq!(s.p999_ns.mean, 40_000.0);
        assert_eq!(s.max_ns.mean, 200_000.0);
        assert_eq!(summarize_latency(&[sample(None)]), None);
        assert_eq!(summarize_latency(&[]), None);
    }
}
