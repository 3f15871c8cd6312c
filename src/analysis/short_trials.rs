//! Trials too short to time well: a case whose median main loop is under
//! [`SHORT_TRIAL_NS`] is flagged, and the run warns about it.
//!
//! Why 20 ms (docs/precision.md has the measurements): the clocks resolve
//! nanoseconds, but getrusage() splits CPU time between user and system
//! at the scheduler tick (4 ms here), and a trial's spread from run to run
//! (spawn, scheduling, page-cache placement) is a near-constant few
//! hundred microseconds to a millisecond or more on a shared machine, which
//! is a large share of a trial of a few milliseconds. Above about 20 ms
//! both fall to a few per cent.

use crate::results::{Sample, ShortTrial};
use crate::stats::moments::median;

/// The shortest median main loop that is not flagged, ns.
pub const SHORT_TRIAL_NS: u64 = 20_000_000;

/// The case `case`, if its samples' median main loop is under `threshold_ns`.
pub fn short_trial(case: usize, samples: &[Sample], threshold_ns: u64) -> Option<ShortTrial> {
    let loops: Vec<f64> = samples.iter().map(|s| s.child.wall_ns as f64).collect();
    let m = median(&loops)?;
    (m < threshold_ns as f64).then_some(ShortTrial {
        case,
        median_loop_ns: m as u64,
        threshold_ns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(wall_ns: u64) -> Sample {
        let mut s = crate::fixtures::results().cases[0].samples[0].clone();
        s.child.wall_ns = wall_ns;
        s
    }

    #[test]
    fn a_median_under_the_threshold_is_flagged() {
        let short = [sample(5_000_000), sample(6_000_000), sample(30_000_000)];
        let flagged = short_trial(3, &short, SHORT_TRIAL_NS).unwrap();
        assert_eq!((flagged.case, flagged.median_loop_ns), (3, 6_000_000));
        let long = [sample(20_000_000), sample(25_000_000)];
        assert_eq!(short_trial(0, &long, SHORT_TRIAL_NS), None);
        assert_eq!(short_trial(0, &[], SHORT_TRIAL_NS), None);
    }
}
