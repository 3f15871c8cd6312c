//! The compared cost of a sample ([`metric_time`]) and the costs of two
//! cases paired by run, a leaf of stats/: the case comparison
//! ([`super::case_summary`]) and the profiler's cost ([`super::profile_cost`])
//! both pair through it.
use std::collections::BTreeMap;

use crate::plan::Metric;
use crate::results::Sample;

/// The time the statistics compare for `sample`, in ns: `total_ns` for
/// [`Metric::Total`], the main loop's `child.wall_ns` for [`Metric::Loop`].
pub fn metric_time(sample: &Sample, metric: Metric) -> f64 {
    match metric {
        Metric::Total => sample.total_ns as f64,
        Metric::Loop => sample.child.wall_ns as f64,
    }
}

/// The compared costs of the runs both slices have, in run order, as
/// [`super::case_summary::compare_cases`] pairs them: times, or times per byte delivered when
/// the samples' bytes differ. `None` when a run number repeats in a slice.
pub fn paired_compared_costs(
    baseline: &[Sample],
    other: &[Sample],
    metric: Metric,
) -> Option<(Vec<f64>, Vec<f64>)> {
    // Duration-bounded trials deliver different bytes in about the same
    // time: then the compared cost is time per byte delivered (the same
    // ratio as the time ratio when the bytes are equal).
    let first = baseline.first().map(|s| s.child.bytes);
    let per_byte = !baseline
        .iter()
        .chain(other)
        .all(|s| Some(s.child.bytes) == first);
    paired_costs(baseline, other, metric, per_byte)
}

/// The compared costs of the runs both slices have, in run order.
fn paired_costs(
    baseline: &[Sample],
    other: &[Sample],
    metric: Metric,
    per_byte: bool,
) -> Option<(Vec<f64>, Vec<f64>)> {
    let base = times_by_run(baseline, metric, per_byte)?;
    let oth = times_by_run(other, metric, per_byte)?;
    Some(
        base.iter()
            .filter_map(|(run, &tb)| oth.get(run).map(|&to| (tb, to)))
            .unzip(),
    )
}

/// Compared times (per byte when `per_byte`) keyed by run number; `None`
/// if a run number repeats.
fn times_by_run(samples: &[Sample], metric: Metric, per_byte: bool) -> Option<BTreeMap<u32, f64>> {
    let mut times = BTreeMap::new();
    for s in samples {
        let t = metric_time(s, metric);
        let cost = if per_byte {
            t / s.child.bytes.max(1) as f64
        } else {
            t
        };
        if times.insert(s.run, cost).is_some() {
            return None;
        }
    }
    Some(times)
}
