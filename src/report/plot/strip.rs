//! Plots of distributions: every sample's throughput per case (a strip
//! plot), and each case's operation latency percentiles when `--latency`
//! was on. Both switch to a log axis when the values span more than
//! [`LOG_SPAN`] times, so that fast cases are not slivers beside slow ones.
use super::chart::{ChartRow, LegendEntry, Mark, RowChart, Swatch};
use super::{palette, row_plot, AxisScale, Plot};
use crate::analysis::case_summary::throughput_bps;
use crate::report::groups::groups;
use crate::results::RunResults;

/// Above this ratio of largest to smallest value, an axis is logarithmic.
pub const LOG_SPAN: f64 = 30.0;

/// The axis for values from `lo` to `hi`: log beyond [`LOG_SPAN`], with
/// some room either side.
pub(crate) fn axis_for(lo: f64, hi: f64) -> (AxisScale, (f64, f64)) {
    if lo > 0.0 && hi / lo > LOG_SPAN {
        (AxisScale::Log, (lo / 1.3, hi * 1.3))
    } else {
        (
            AxisScale::Linear,
            (0.0, if hi > 0.0 { hi * 1.08 } else { 1.0 }),
        )
    }
}

/// Every sample's throughput, one row per case, with a tick at the mean;
/// `None` without samples or when no case has a summary.
pub fn sample_plot(results: &RunResults) -> Option<Plot> {
    if results.cases.iter().all(|c| c.summary.is_none()) {
        return None;
    }
    let metric = results.settings.metric;
    let gib = (1u64 << 30) as f64;
    let mut rows = Vec::new();
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    let mut any = false;
    for group in groups(results) {
        rows.push(ChartRow::Heading(group.heading.clone()));
        for case in &group.cases {
            // The samples the statistics count (a retried, excluded or
            // control trial is not one of the case's points).
            let values: Vec<f64> = case
                .counted_samples()
                .iter()
                .map(|s| throughput_bps(s, metric) / gib)
                .filter(|v| v.is_finite() && *v > 0.0)
                .collect();
            let mut marks: Vec<Mark> = values
                .iter()
                .map(|&x| Mark::Point {
                    x,
                    color: palette(0),
                })
                .collect();
            for &v in &values {
                lo = lo.min(v);
                hi = hi.max(v);
                any = true;
            }
            if let Some(s) = &case.summary {
                marks.push(Mark::Tick {
                    x: s.throughput_bps.mean / gib,
                });
            }
            if marks.is_empty() {
                marks.push(Mark::Text("no samples".into()));
            }
            rows.push(ChartRow::Item {
                label: case.label.clone(),
                marks,
                note: Some(format!("n = {}", values.len())),
            });
        }
    }
    if !any {
        return None;
    }
    let (x_scale, x_range) = axis_for(lo, hi);
    let log = x_scale == AxisScale::Log;
    let chart = RowChart {
        x_label: format!(
            "throughput of each trial, GiB/s{}",
            if log { " (log scale)" } else { "" }
        ),
        x_scale,
        x_range,
        rows,
        legend: vec![
            LegendEntry {
                label: "one trial".into(),
                swatch: Swatch::Point(palette(0)),
            },
            LegendEntry {
                label: "mean".into(),
                swatch: Swatch::Tick,
            },
        ],
        reference: None,
    };
    let caption = format!(
        "Each dot is one measured trial's throughput (bytes over the compared time), so the \
         spread behind each mean is visible: a bimodal case, a slow first run or an outlier \
         shows here before it shows in a mean.{}",
        if log {
            format!(" The values span more than {LOG_SPAN}x, so the axis is logarithmic.")
        } else {
            String::new()
        }
    );
    Some(row_plot(
        "samples",
        "Throughput of every trial",
        caption,
        &chart,
    ))
}

/// The operation latency percentiles of each case that recorded them
/// (means over its trials of p50, p90, p99, p99.9 and the maximum), on a
/// log axis; `None` when no case recorded latency.
pub fn latency_plot(results: &RunResults) -> Option<Plot> {
    let mut rows = Vec::new();
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    let names = ["p50", "p90", "p99", "p99.9", "max"];
    for group in groups(results) {
        let with: Vec<_> = group
            .cases
            .iter()
            .filter_map(|c| Some((c, c.summary.as_ref()?.latency.as_ref()?)))
            .collect();
        if with.is_empty() {
            continue;
        }
        rows.push(ChartRow::Heading(group.heading.clone()));
        for (case, l) in with {
            let values = [
                l.p50_ns.mean,
                l.p90_ns.mean,
                l.p99_ns.mean,
                l.p999_ns.mean,
                l.max_ns.mean,
            ]
            .map(|ns| ns / 1e3);
            let mut marks = Vec::new();
            for (i, &v) in values.iter().enumerate() {
                if v.is_finite() && v > 0.0 {
                    lo = lo.min(v);
                    hi = hi.max(v);
                    marks.push(Mark::Point {
                        x: v,
                        color: palette(i),
                    });
                }
            }
            if marks.is_empty() {
                marks.push(Mark::Text("no latency above 0".into()));
            }
            rows.push(ChartRow::Item {
                label: case.label.clone(),
                marks,
                note: Some(format!("{} trials", l.trials)),
            });
        }
    }
    if rows.is_empty() || hi <= 0.0 {
        return None;
    }
    let chart = RowChart {
        x_label: "operation latency, µs (log scale)".into(),
        x_scale: AxisScale::Log,
        x_range: (lo / 1.5, hi * 1.5),
        rows,
        legend: names
            .iter()
            .enumerate()
            .map(|(i, n)| LegendEntry {
                label: (*n).into(),
                swatch: Swatch::Point(palette(i)),
            })
            .collect(),
        reference: None,
    };
    let caption = "The latency distribution of each case that ran with --latency: its median \
                   (p50), p90, p99, p99.9 and maximum operation latency, each the mean over the \
                   trials of that trial's own percentile (the trials record percentiles from an \
                   HDR histogram, not every operation)."
        .to_string();
    Some(row_plot(
        "latency",
        "Operation latency percentiles",
        caption,
        &chart,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn a_dot_per_sample_and_a_log_axis_past_thirty_times() {
        let results = fixtures::results();
        let plot = sample_plot(&results).expect("samples");
        assert_eq!(plot.name, "samples");
        assert!(plot.svg.contains("<svg"));
        assert_eq!(axis_for(1.0, 20.0).0, AxisScale::Linear);
        assert_eq!(axis_for(1.0, 31.0).0, AxisScale::Log);
        assert_eq!(axis_for(0.0, 31.0).0, AxisScale::Linear);
        assert!(latency_plot(&results).is_none(), "no latency recorded");
    }
}
