//! The plots of one run's results ([`plots`]): throughput per case, the
//! ratios of every comparison, where the time goes, where the cycles go
//! (`--profile`), beside the sample strips and latency percentiles of
//! [`super::strip`]. Every number drawn is read from the results.
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use plotters::style::RGBColor;

use super::chart::{ChartRow, LegendEntry, Mark, RowChart, Swatch};
use super::{
    palette, row_plot, strip, write_plot_files, AxisScale, Plot, FASTER, NOISE, OFF_CPU, SLOWER,
    SYS, USER,
};
use crate::error::Result;
use crate::plan::Metric;
use crate::report::groups::{groups, Group};
use crate::report::rows::{case_row, Row};
use crate::report::units::ratio;
use crate::results::RunResults;
use crate::stats::Verdict;

/// The most groups drawn as a "where the time goes" plot each.
pub const MAX_GROUP_PLOTS: usize = 100;

/// Every plot the results can fill: `throughput` and `time` when a case has
/// a summary, `ratios` when there is a comparison.
/// Also every trial's throughput (`samples`), the latency percentiles when
/// a case recorded them (`latency`), and, when the cases' times span more
/// than [`strip::LOG_SPAN`] times, one time plot per group (`time-1`, …)
/// instead of one whose slow cases leave the fast ones as slivers (up to
/// [`MAX_GROUP_PLOTS`] groups; more make one plot, cut to its row limit).
/// `cycles` beside the time plots when a case was profiled.
pub fn plots(results: &RunResults) -> Vec<Plot> {
    let mut out: Vec<Plot> = [
        throughput_plot(results),
        strip::sample_plot(results),
        ratio_plot(results),
    ]
    .into_iter()
    .flatten()
    .collect();
    let ends: Vec<f64> = results
        .cases
        .iter()
        .filter_map(|c| c.summary.as_ref())
        .map(|s| s.time_ns.mean)
        .filter(|t| *t > 0.0)
        .collect();
    let (lo, hi) = ends
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, h), &t| (l.min(t), h.max(t)));
    let all = groups(results);
    let any_summary = results.cases.iter().any(|c| c.summary.is_some());
    // Times too far apart for one axis: a plot per group, unless there are
    // more groups than a page shows plots (then one, cut to its row limit).
    if any_summary && all.len() > 1 && all.len() <= MAX_GROUP_PLOTS && hi / lo > strip::LOG_SPAN {
        for (i, g) in all.iter().enumerate() {
            out.extend(time_plot_of(
                results,
                std::slice::from_ref(g),
                &format!("time-{}", i + 1),
                &format!("Where the time goes: {}", g.heading),
            ));
        }
    } else if any_summary {
        out.extend(time_plot_of(results, &all, "time", "Where the time goes"));
    }
    out.extend(cycles_plot(results));
    out.extend(strip::latency_plot(results));
    out
}

/// Writes every plot of [`plots`] into `dir` (created if missing) as
/// `<name>.svg` and `<name>.png`, each atomically; returns the paths written.
pub fn write_plots(results: &RunResults, dir: &Path) -> Result<Vec<PathBuf>> {
    write_plot_files(&plots(results), dir)
}

/// Mean throughput per case with its 95% CI; `None` when no case has a summary.
pub fn throughput_plot(results: &RunResults) -> Option<Plot> {
    if results.cases.iter().all(|c| c.summary.is_none()) {
        return None;
    }
    let colors = method_colors(results);
    let mut rows = Vec::new();
    let mut hi: f64 = 0.0;
    for group in groups(results) {
        rows.push(ChartRow::Heading(group.heading.clone()));
        for case in &group.cases {
            let marks = match (&case.summary, case_row(case, results, false)) {
                (Some(s), _) => {
                    let tp = &s.throughput_bps;
                    let mean = tp.mean / 1e9;
                    hi = hi.max(mean);
                    let mut marks = vec![Mark::Bar {
                        from: 0.0,
                        to: mean,
                        color: colors[case.case.method.to_string().as_str()],
                    }];
                    if let Some((low, high)) = tp.ci95 {
                        hi = hi.max(high / 1e9);
                        marks.push(Mark::Interval {
                            low: low / 1e9,
                            high: high / 1e9,
                        });
                    }
                    marks
                }
                (None, Row::Empty { note, .. }) => vec![Mark::Text(note)],
                (None, Row::Measured(_)) => vec![Mark::Text("no summary".to_string())],
            };
            rows.push(ChartRow::Item {
                label: case.label.clone(),
                marks,
                note: None,
            });
        }
    }
    let mut legend: Vec<LegendEntry> = legend_order(results)
        .into_iter()
        .map(|label| LegendEntry {
            swatch: Swatch::Fill(colors[&label]),
            label,
        })
        .collect();
    legend.push(LegendEntry {
        label: "95% CI".to_string(),
        swatch: Swatch::Interval,
    });
    // Means spanning more than 30x: a log axis, bars from its left end.
    let lo = results
        .cases
        .iter()
        .filter_map(|c| c.summary.as_ref())
        .map(|s| s.throughput_bps.mean / 1e9)
        .filter(|m| *m > 0.0)
        .fold(f64::INFINITY, f64::min);
    let (x_scale, x_range) = match strip::axis_for(lo, hi) {
        (AxisScale::Log, range) => (AxisScale::Log, range),
        _ => (AxisScale::Linear, (0.0, nonzero(hi) * 1.08)),
    };
    if x_scale == AxisScale::Log {
        for row in &mut rows {
            if let ChartRow::Item { marks, .. } = row {
                for mark in marks {
                    if let Mark::Bar { from, .. } = mark {
                        *from = x_range.0;
                    }
                }
            }
        }
    }
    let chart = RowChart {
        x_label: if x_scale == AxisScale::Log {
            "throughput, GB/s (10^9 bytes/s; log scale)".to_string()
        } else {
            "throughput, GB/s (10^9 bytes/s)".to_string()
        },
        x_scale,
        x_range,
        rows,
        legend,
        reference: None,
    };
    let caption = format!(
        "Bars: mean throughput of each case, bytes delivered over the {} time, in GB/s. \
         Whiskers: the 95% CI of the mean. One colour per method.",
        metric_words(results.settings.metric)
    );
    Some(row_plot(
        "throughput",
        "Throughput per case",
        caption,
        &chart,
    ))
}

/// A forest plot of the paired throughput ratios; `None` without comparisons.
pub fn ratio_plot(results: &RunResults) -> Option<Plot> {
    if results.comparisons.is_empty() {
        return None;
    }
    // Labels by case id, looked up once each (the first case of an id).
    let mut labels: HashMap<usize, &str> = HashMap::with_capacity(results.cases.len());
    for c in &results.cases {
        labels.entry(c.id).or_insert(c.label.as_str());
    }
    let label_of = |id: usize| {
        labels
            .get(&id)
            .map_or_else(|| format!("case #{id}"), |l| l.to_string())
    };
    // Each comparison goes under the table heading of its baseline's group.
    let headings: BTreeMap<usize, String> = groups(results)
        .iter()
        .flat_map(|g| g.cases.iter().map(|c| (c.id, g.heading.clone())))
        .collect();
    let mut rows = Vec::new();
    let mut last_heading = None;
    let (mut lo, mut hi) = (1.0f64, 1.0f64);
    let mut verdicts = Vec::new();
    for cmp in &results.comparisons {
        let group = headings
            .get(&cmp.baseline)
            .cloned()
            .unwrap_or_else(|| cmp.group.clone());
        let heading = format!("{group}: against {}", label_of(cmp.baseline));
        if last_heading.as_ref() != Some(&heading) {
            rows.push(ChartRow::Heading(heading.clone()));
            last_heading = Some(heading);
        }
        let r = &cmp.throughput_ratio;
        let drawable = [r.ratio, r.ci95_low, r.ci95_high]
            .iter()
            .all(|v| v.is_finite() && *v > 0.0);
        let marks = if drawable {
            lo = lo.min(r.ci95_low);
            hi = hi.max(r.ci95_high);
            let color = verdict_color(cmp.verdict);
            if !verdicts.contains(&cmp.verdict) {
                verdicts.push(cmp.verdict);
            }
            vec![
                Mark::Interval {
                    low: r.ci95_low,
                    high: r.ci95_high,
                },
                Mark::Point { x: r.ratio, color },
            ]
        } else {
            vec![Mark::Text("ratio not drawable on a log axis".to_string())]
        };
        rows.push(ChartRow::Item {
            label: label_of(cmp.other),
            marks,
            note: Some(format!(
                "{} [{}–{}]",
                ratio(r.ratio),
                ratio(r.ci95_low),
                ratio(r.ci95_high)
            )),
        });
    }
    let pad = (hi / lo).powf(0.08).max(1.05);
    let mut legend: Vec<LegendEntry> = [Verdict::Faster, Verdict::WithinNoise, Verdict::Slower]
        .into_iter()
        .filter(|v| verdicts.contains(v))
        .map(|v| LegendEntry {
            label: verdict_words(v).to_string(),
            swatch: Swatch::Point(verdict_color(v)),
        })
        .collect();
    legend.push(LegendEntry {
        label: "95% CI".to_string(),
        swatch: Swatch::Interval,
    });
    legend.push(LegendEntry {
        label: "1 = as fast as the baseline".to_string(),
        swatch: Swatch::Reference,
    });
    let chart = RowChart {
        x_label: "throughput ratio, case / baseline (log scale; above 1 is faster)".to_string(),
        x_scale: AxisScale::Log,
        x_range: (lo / pad, hi * pad),
        rows,
        legend,
        reference: Some(1.0),
    };
    let caption = "Each case's throughput over its group's baseline (the first method), paired \
                   run by run: the geometric mean of the per-run ratios and its 95% CI. Faster \
                   when the whole CI lies above 1, slower when below, within noise otherwise."
        .to_string();
    Some(row_plot(
        "ratios",
        "Paired throughput ratios",
        caption,
        &chart,
    ))
}

/// User, sys and off-CPU time per case, stacked; `None` when no case has a summary.
pub fn time_plot(results: &RunResults) -> Option<Plot> {
    if results.cases.iter().all(|c| c.summary.is_none()) {
        return None;
    }
    time_plot_of(results, &groups(results), "time", "Where the time goes")
}

/// [`time_plot`] of the groups `shown` (of [`groups`]).
/// The caller checks that some case has a summary (once: it looks at
/// every case).
fn time_plot_of(
    results: &RunResults,
    shown: &[Group<'_>],
    name: &str,
    title: &str,
) -> Option<Plot> {
    let mut rows = Vec::new();
    let mut hi: f64 = 0.0;
    for group in shown {
        rows.push(ChartRow::Heading(group.heading.clone()));
        for case in &group.cases {
            let marks = match (&case.summary, case_row(case, results, false)) {
                (Some(s), _) => {
                    let ms = |ns: f64| ns / 1e6;
                    let wall = ms(s.setup_ns.mean + s.loop_ns.mean + s.teardown_ns.mean);
                    let user = ms(s.user_ns.mean);
                    let sys = ms(s.sys_ns.mean);
                    let cpu = user + sys;
                    let end = wall.max(cpu);
                    hi = hi.max(end);
                    vec![
                        Mark::Bar {
                            from: 0.0,
                            to: user,
                            color: USER,
                        },
                        Mark::Bar {
                            from: user,
                            to: cpu,
                            color: SYS,
                        },
                        Mark::Bar {
                            from: cpu,
                            to: end,
                            color: OFF_CPU,
                        },
                        Mark::Tick {
                            x: ms(s.loop_ns.mean),
                        },
                    ]
                }
                (None, Row::Empty { note, .. }) => vec![Mark::Text(note)],
                (None, Row::Measured(_)) => vec![Mark::Text("no summary".to_string())],
            };
            rows.push(ChartRow::Item {
                label: case.label.clone(),
                marks,
                note: None,
            });
        }
    }
    let legend = vec![
        LegendEntry {
            label: "user CPU".to_string(),
            swatch: Swatch::Fill(USER),
        },
        LegendEntry {
            label: "sys CPU".to_string(),
            swatch: Swatch::Fill(SYS),
        },
        LegendEntry {
            label: "off CPU (waiting)".to_string(),
            swatch: Swatch::Fill(OFF_CPU),
        },
        LegendEntry {
            label: "main loop ends".to_string(),
            swatch: Swatch::Tick,
        },
    ];
    let chart = RowChart {
        x_label: "mean time per trial, ms".to_string(),
        x_scale: AxisScale::Linear,
        x_range: (0.0, nonzero(hi) * 1.05),
        rows,
        legend,
        reference: None,
    };
    let caption = "Each bar is a trial's setup + main loop + teardown wall time (means over the \
                   runs): user and sys CPU time from getrusage over those three, and the rest \
                   spent off CPU (waiting for the device, or descheduled). The tick marks the \
                   main loop's own wall time. Where CPU time exceeds wall time (accounting \
                   granularity) the bar ends at the CPU time."
        .to_string();
    Some(row_plot(name, title, caption, &chart))
}

/// The colour of each profile category: kernel copies and faults warm,
/// user-space work cool, the rest grey.
fn category_color(c: crate::measure::profile::Category) -> RGBColor {
    use crate::measure::profile::Category::*;
    match c {
        CopyToUser => RGBColor(213, 94, 0),
        CopyFromUser => RGBColor(204, 121, 167),
        PageFault => RGBColor(230, 159, 0),
        PageCache => RGBColor(240, 228, 66),
        Readahead => RGBColor(136, 34, 85),
        Syscall => RGBColor(153, 153, 51),
        Tlb => RGBColor(0, 0, 0),
        UserMemcpy => RGBColor(0, 114, 178),
        Workload => RGBColor(0, 158, 115),
        OtherKernel => RGBColor(170, 170, 170),
        OtherUser => RGBColor(86, 180, 233),
    }
}

/// Where each profiled case's main-loop samples fall, stacked by category
/// to 100%; `None` when no case was profiled.
pub fn cycles_plot(results: &RunResults) -> Option<Plot> {
    use crate::measure::profile::Category;
    let profile_of = |c: &crate::results::CaseResult| {
        c.summary.as_ref().and_then(|s| s.profile.as_ref()).cloned()
    };
    if results.cases.iter().all(|c| profile_of(c).is_none()) {
        return None;
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut rows = Vec::new();
    for group in groups(results) {
        let profiled: Vec<_> = group
            .cases
            .iter()
            .filter_map(|c| profile_of(c).map(|p| (c, p)))
            .collect();
        if profiled.is_empty() {
            continue;
        }
        rows.push(ChartRow::Heading(group.heading.clone()));
        for (case, p) in profiled {
            // In table order, so that the same category sits in the same
            // place in every bar.
            let mut marks = Vec::new();
            let mut at = 0.0;
            for category in Category::ALL {
                let share = p.mean_share(category) * 100.0;
                if share > 0.0 {
                    seen.insert(category);
                    marks.push(Mark::Bar {
                        from: at,
                        to: at + share,
                        color: category_color(category),
                    });
                    at += share;
                }
            }
            rows.push(ChartRow::Item {
                label: case.label.clone(),
                marks,
                note: Some(format!("{} samples", p.samples)),
            });
        }
    }
    let legend = seen
        .into_iter()
        .map(|c| LegendEntry {
            label: c.label().to_string(),
            swatch: Swatch::Fill(category_color(c)),
        })
        .collect();
    let chart = RowChart {
        x_label: "share of the main loop's CPU samples, % (mean over the trials)".to_string(),
        x_scale: AxisScale::Linear,
        x_range: (0.0, 100.0),
        rows,
        legend,
        reference: None,
    };
    let caption = "Each bar is one case's main loop, sampled with the cpu-clock event (--profile):                    each category's share of a trial's samples, averaged over the trials, in the                    order of faultline's category table (kernel copies and faults warm colours, user                    space cool). The note is the samples behind the bar. The flame graphs show the                    functions inside each category."
        .to_string();
    Some(row_plot("cycles", "Where the cycles go", caption, &chart))
}

/// One colour per method, in order of first appearance.
fn method_colors(results: &RunResults) -> BTreeMap<String, RGBColor> {
    legend_order(results)
        .into_iter()
        .enumerate()
        .map(|(i, method)| (method, palette(i)))
        .collect()
}

/// The distinct methods (without their options), in order of first appearance.
fn legend_order(results: &RunResults) -> Vec<String> {
    let mut methods: Vec<String> = Vec::new();
    for case in &results.cases {
        let method = case.case.method.to_string();
        if !methods.contains(&method) {
            methods.push(method);
        }
    }
    methods
}

fn verdict_color(v: Verdict) -> RGBColor {
    match v {
        Verdict::Faster => FASTER,
        Verdict::Slower => SLOWER,
        Verdict::WithinNoise | Verdict::Unsettled => NOISE,
    }
}

fn verdict_words(v: Verdict) -> &'static str {
    match v {
        Verdict::Faster => "faster (CI above 1)",
        Verdict::Slower => "slower (CI below 1)",
        Verdict::WithinNoise => "within noise (CI contains 1)",
        Verdict::Unsettled => "unsettled (machine busy)",
    }
}

fn metric_words(metric: Metric) -> &'static str {
    match metric {
        Metric::Total => "setup + main loop + teardown",
        Metric::Loop => "main-loop",
    }
}

/// `x`, or 1 when it is not a positive number (an empty axis still needs a range).
fn nonzero(x: f64) -> f64 {
    if x.is_finite() && x > 0.0 {
        x
    } else {
        1.0
    }
}
