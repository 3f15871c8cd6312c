//! What a case's access pattern did, over its trials: operations per
//! second, the footprint (distinct blocks, or pages of a trace, touched) and,
//! for duration-bounded trials, the mean per-second timeline. Computed during
//! assembly from the samples; no I/O.

use crate::results::{FootprintSummary, Sample, TimelineMean};
use crate::stats::summary::{summarize, Summary};

/// Operations (blocks or trace reads delivered) per second of main loop;
/// `None` when a sample does not say how many it made (older results).
pub fn ops_per_s(samples: &[Sample]) -> Option<Summary> {
    if samples
        .iter()
        .any(|s| s.child.ops == 0 || s.child.wall_ns == 0)
    {
        return None;
    }
    let rates: Vec<f64> = samples
        .iter()
        .map(|s| s.child.ops as f64 / (s.child.wall_ns as f64 / 1e9))
        .collect();
    summarize(&rates)
}

/// The mean footprint; `None` unless every sample has one.
pub fn footprint(samples: &[Sample]) -> Option<FootprintSummary> {
    let prints: Vec<_> = samples.iter().map(|s| s.child.footprint).collect();
    let first = (*prints.first()?)?;
    if prints.iter().any(|p| p.is_none()) {
        return None;
    }
    let mean = |f: &dyn Fn(&crate::pattern::Footprint) -> f64| {
        prints.iter().flatten().map(f).sum::<f64>() / prints.len() as f64
    };
    Some(FootprintSummary {
        distinct: mean(&|p| p.distinct as f64),
        units: first.units,
        unit_bytes: first.unit_bytes,
        share: mean(&|p| p.share),
        bytes: mean(&|p| p.bytes as f64),
    })
}

/// The per-second means of the samples' timelines (empty without any).
pub fn timeline(samples: &[Sample]) -> Vec<TimelineMean> {
    let longest = samples
        .iter()
        .map(|s| s.child.timeline.len())
        .max()
        .unwrap_or(0);
    (0..longest)
        .map(|i| {
            let points: Vec<_> = samples
                .iter()
                .filter_map(|s| s.child.timeline.get(i))
                .collect();
            let n = points.len() as f64;
            let mean = |f: &dyn Fn(&crate::measure::timeline::TimelinePoint) -> f64| {
                points.iter().map(|p| f(p)).sum::<f64>() / n
            };
            let mean_opt = |f: &dyn Fn(&crate::measure::timeline::TimelinePoint) -> Option<f64>| {
                let values: Option<Vec<f64>> = points.iter().map(|p| f(p)).collect();
                values.map(|v| v.iter().sum::<f64>() / n)
            };
            TimelineMean {
                second: i as u32 + 1,
                trials: points.len(),
                reads_per_s: mean(&|p| p.reads_per_s),
                major_faults_per_s: mean(&|p| p.major_faults_per_s),
                tlb_shootdowns_per_s: mean_opt(&|p| p.tlb_shootdowns_per_s),
                own_read_bytes_per_s: mean_opt(&|p| p.own_read_bytes_per_s),
                device_read_bytes_per_s: mean_opt(&|p| p.device_read_bytes_per_s),
                cgroup_bytes: mean_opt(&|p| p.cgroup_bytes.map(|b| b as f64)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::timeline::TimelinePoint;

    fn point(second: u32, reads_per_s: f64, own: Option<f64>) -> TimelinePoint {
        TimelinePoint {
            second,
            interval_s: 1.0,
            reads: reads_per_s as u64,
            reads_per_s,
            tlb_shootdowns_per_s: Some(2.0),
            major_faults_per_s: reads_per_s / 10.0,
            device_read_bytes_per_s: None,
            own_read_bytes_per_s: own,
            cgroup_bytes: Some(100),
        }
    }

    #[test]
    fn ops_footprints_and_timelines_are_averaged_over_trials() {
        let mut a = crate::fixtures::sample(0, 0);
        let mut b = crate::fixtures::sample(0, 1);
        a.child.ops = 1000;
        a.child.wall_ns = 1_000_000_000;
        b.child.ops = 3000;
        b.child.wall_ns = 1_000_000_000;
        let print = |distinct: u64| crate::pattern::Footprint {
            distinct,
            units: 100,
            unit_bytes: 4096,
            share: distinct as f64 / 100.0,
            bytes: distinct * 4096,
        };
        a.child.footprint = Some(print(10));
        b.child.footprint = Some(print(30));
        a.child.timeline = vec![point(1, 100.0, Some(10.0)), point(2, 200.0, Some(20.0))];
        b.child.timeline = vec![point(1, 300.0, None)];
        let samples = [a.clone(), b.clone()];
        assert_eq!(ops_per_s(&samples).unwrap().mean, 2000.0);
        let f = footprint(&samples).unwrap();
        assert_eq!((f.distinct, f.share, f.units), (20.0, 0.2, 100));
        let t = timeline(&samples);
        assert_eq!(t.len(), 2);
        assert_eq!((t[0].trials, t[0].reads_per_s), (2, 200.0));
        assert_eq!(t[0].own_read_bytes_per_s, None, "not every trial had it");
        assert_eq!((t[1].trials, t[1].own_read_bytes_per_s), (1, Some(20.0)));
        // A sample without a count or a footprint: nothing is made up.
        b.child.ops = 0;
        b.child.footprint = None;
        assert!(ops_per_s(&[a.clone(), b.clone()]).is_none());
        assert!(footprint(&[a, b]).is_none());
    }
}
