//! Plots of a run's results, as SVG (inlined by the HTML report) and PNG.
//!
//! [`plots`] draws, from a [`RunResults`] alone:
//! - `throughput`: mean throughput per case with its 95% CI, one row per
//!   case under its group's heading, one colour per method (its options,
//!   such as `populate=map`, are in the row label);
//! - `ratios`: a forest plot of every paired comparison: the throughput
//!   ratio to the group's baseline with its 95% CI on a log axis, coloured by
//!   verdict, with a dashed line at 1;
//! - `time`: per case, the mean user and sys CPU time and the rest of the
//!   wall time stacked into one bar, with a tick where the main loop alone ends.
//! - `cycles` (`--profile`): per profiled case, one bar of 100% stacked by
//!   category (each category's mean share of the main loop's samples).
//!
//! [`series_plot`] is the generic x/y plot a preset uses to put a published
//! series beside a measured one (say, a ratio against a scale factor, or time
//! against file size on log-log axes): measured series are solid with CI
//! whiskers, published ones dashed with hollow markers.
//!
//! [`bar_plot`] draws a [`BarChart`]: panels of grouped bars, each a stack
//! of segments (user and sys time, say) with an optional CI whisker and a
//! note (a fault count), measured bars filled and published ones pale.
//!
//! Every plot is 800 px wide with 12 to 18 px text, so it reads at its own
//! size. The SVG comes from plotters' SVG backend and names only the generic
//! `sans-serif` font. The PNG is that SVG rasterised by resvg with an
//! embedded DejaVu Sans (see `font`): pure Rust, no system library, no
//! system font, the same pixels on every machine. (plotters' own bitmap
//! backend needs font-kit and fontconfig to draw text, which a fresh machine
//! may lack.)
//!
//! Nothing here computes a statistic: every number drawn is read from the
//! results (means, CIs, ratios and verdicts as the stats module left them).
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};

use plotters::style::RGBColor;

use self::chart::{ChartRow, LegendEntry, Mark, RowChart, Swatch, XyChart, XySeries};
use super::groups::{groups, Group};
use super::row_limit::{thousands, MAX_PLOT_ROWS};
use super::rows::{case_row, Row};
use super::units::ratio;
use crate::error::{Error, Result};
use crate::files::atomic::{write_atomically, SHARED_MODE};
use crate::plan::Metric;
use crate::stats::RunResults;
use crate::stats::Verdict;

pub use self::bars::{Bar, BarChart, BarGroup, BarPanel, Hue, Key, Segment};
pub use self::heat::{HeatCell, HeatChart};

mod bars;
mod chart;
pub mod flame;
mod font;
mod heat;
pub mod strip;

/// A rendered plot.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    /// File stem and HTML id, e.g. `throughput`.
    pub name: String,
    /// The title drawn above the plot.
    pub title: String,
    /// What the marks mean, in a sentence or two (the HTML figure caption).
    pub caption: String,
    /// Width in px.
    pub width: u32,
    /// Height in px.
    pub height: u32,
    /// The SVG document.
    pub svg: String,
}

impl Plot {
    /// The plot as PNG, rasterised from [`Plot::svg`] at its own size.
    pub fn png(&self) -> io::Result<Vec<u8>> {
        font::svg_to_png(&self.svg)
    }
}

/// Linear or logarithmic axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxisScale {
    /// Equal steps for equal differences.
    Linear,
    /// Equal steps for equal ratios; values must be positive.
    Log,
}

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeriesStyle {
    /// Measured here: solid line, filled dots, CI whiskers.
    Measured,
    /// Taken from a publication: dashed line, hollow squares.
    Published,
}

/// One axis of a [`series_plot`].
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// Its description, with the unit, e.g. `file size, MiB`.
    pub label: String,
    /// Linear or log.
    pub scale: AxisScale,
}

impl Axis {
    /// A linear axis.
    pub fn linear(label: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            scale: AxisScale::Linear,
        }
    }

    /// A logarithmic axis.
    pub fn log(label: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            scale: AxisScale::Log,
        }
    }
}

/// A point of a [`Series`]: `(x, y, Some((low, high)))`, with the 95% CI of
/// y when it is known.
pub type Point = (f64, f64, Option<(f64, f64)>);

/// One series of a [`series_plot`].
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend text, e.g. `measured (mmap / read)` or `Sun 2002, Table 3`.
    pub label: String,
    /// Its points, in any order (they are drawn in x order).
    pub points: Vec<Point>,
    /// Measured or published.
    pub style: SeriesStyle,
}

/// The Okabe–Ito colours, distinguishable with common colour-vision
/// deficiencies, then four of Paul Tol's muted ones.
const PALETTE: [RGBColor; 11] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(213, 94, 0),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(136, 34, 85),
    RGBColor(68, 170, 153),
    RGBColor(153, 153, 51),
    RGBColor(51, 34, 136),
];

/// Colour of the `i`th method or series (the palette repeats after 11).
fn palette(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Verdict colours.
const FASTER: RGBColor = RGBColor(0, 158, 115);
const SLOWER: RGBColor = RGBColor(213, 94, 0);
const NOISE: RGBColor = RGBColor(150, 150, 150);
/// Stacked time segments.
const USER: RGBColor = RGBColor(0, 114, 178);
const SYS: RGBColor = RGBColor(230, 159, 0);
const OFF_CPU: RGBColor = RGBColor(205, 205, 205);
/// Elapsed (wall-clock) time bars.
const WALL: RGBColor = RGBColor(90, 90, 90);

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

/// Writes `plots` into `dir` (created if missing) as `<name>.svg` and
/// `<name>.png`, each atomically; returns the paths written.
pub fn write_plot_files(plots: &[Plot], dir: &Path) -> Result<Vec<PathBuf>> {
    crate::files::outputs::ensure_output_dir("--plots", dir)?;
    let mut written = Vec::new();
    for plot in plots {
        let svg = dir.join(format!("{}.svg", plot.name));
        let marked = crate::files::made::mark_svg(&plot.svg);
        write_atomically(&svg, SHARED_MODE, |w| w.write_all(marked.as_bytes()))?;
        written.push(svg);
        let png_path = dir.join(format!("{}.png", plot.name));
        let png = plot.png().map_err(|e| Error::io("render", &png_path, e))?;
        let png = crate::files::made::mark_png(&png);
        write_atomically(&png_path, SHARED_MODE, |w| w.write_all(&png))?;
        written.push(png_path);
    }
    Ok(written)
}

/// A plot of series against two numeric axes, for presets that set a
/// measured series beside published ones.
///
/// Points are drawn in x order. Points that an axis cannot show (not finite,
/// or not positive on a log axis) are left out, and the caption says how
/// many; a CI that cannot be shown is left out alone.
pub fn series_plot(name: &str, title: &str, x: Axis, y: Axis, series: &[Series]) -> Plot {
    let chart = XyChart {
        x_label: x.label,
        y_label: y.label,
        x_scale: x.scale,
        y_scale: y.scale,
        series: series
            .iter()
            .enumerate()
            .map(|(i, s)| XySeries {
                label: s.label.clone(),
                color: palette(i),
                style: s.style,
                points: s.points.clone(),
            })
            .collect(),
    };
    let mut caption = String::from(
        "Solid lines with dots: measured here, whiskers 95% CI. \
         Dashed lines with hollow squares: published values.",
    );
    let drawn = chart.render(title).map(|(svg, dropped)| {
        if dropped > 0 {
            caption.push_str(&format!(
                " {dropped} point(s) could not be drawn (not finite, or not positive on a log axis)."
            ));
        }
        svg
    });
    plot_of(name, title, caption, chart.height(), drawn)
}

/// The [`Plot`] of a chart `height` px tall that `drawn` rendered, or one
/// whose SVG says why it could not be drawn.
fn plot_of(
    name: &str,
    title: &str,
    caption: String,
    height: u32,
    drawn: chart::Drawn<String>,
) -> Plot {
    Plot {
        name: name.to_string(),
        title: title.to_string(),
        caption,
        width: chart::WIDTH,
        height,
        svg: drawn.unwrap_or_else(|e| failed_svg(&e.to_string())),
    }
}

/// A bar chart (see [`BarChart`]): panels of grouped, stacked bars with
/// optional CI whiskers and notes, for presets that draw a study's bar
/// figure. `caption` says what the bars are; a sentence is added when some
/// segments could not be drawn.
pub fn bar_plot(name: &str, title: &str, caption: &str, chart: &BarChart) -> Plot {
    let mut caption = caption.to_string();
    let dropped = chart.undrawable();
    if dropped > 0 {
        caption.push_str(&format!(
            " {dropped} bar segment(s) could not be drawn (not finite, negative, or not positive on a log axis)."
        ));
    }
    plot_of(name, title, caption, chart.height(), chart.render(title))
}

/// A heat map (see [`HeatChart`]): a grid of cells, each filled and
/// labelled, for a map over two factors. `caption` says what the colours
/// and labels are.
pub fn heat_plot(name: &str, title: &str, caption: &str, chart: &HeatChart) -> Plot {
    plot_of(
        name,
        title,
        caption.to_string(),
        chart.height(),
        chart.render(title),
    )
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
    let profile_of =
        |c: &crate::stats::CaseResult| c.summary.as_ref().and_then(|s| s.profile.as_ref()).cloned();
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

/// Renders a row chart into a [`Plot`].
/// A plot of more than [`MAX_PLOT_ROWS`] rows draws the first of them
/// only, and its caption says so.
fn row_plot(name: &str, title: &str, caption: String, chart: &RowChart) -> Plot {
    let items = chart
        .rows
        .iter()
        .filter(|r| matches!(r, ChartRow::Item { .. }))
        .count();
    if items <= MAX_PLOT_ROWS {
        return plot_of(name, title, caption, chart.height(), chart.render(title));
    }
    // Up to and including the last item drawn (no heading left hanging).
    let mut seen = 0;
    let end = chart
        .rows
        .iter()
        .position(|r| {
            if matches!(r, ChartRow::Item { .. }) {
                seen += 1;
            }
            seen == MAX_PLOT_ROWS
        })
        .map_or(chart.rows.len(), |i| i + 1);
    let cut = RowChart {
        x_label: chart.x_label.clone(),
        x_scale: chart.x_scale,
        x_range: chart.x_range,
        rows: chart.rows[..end].to_vec(),
        legend: chart.legend.clone(),
        reference: chart.reference,
    };
    let caption = format!(
        "{caption} Only the first {} of its {} rows are drawn; the run's JSON export holds every case and comparison.",
        thousands(MAX_PLOT_ROWS),
        thousands(items)
    );
    plot_of(name, title, caption, cut.height(), cut.render(title))
}

/// A small SVG that says the plot could not be drawn, and why.
fn failed_svg(why: &str) -> String {
    let why: String = why
        .chars()
        .map(|c| match c {
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '&' => "&amp;".to_string(),
            '"' => "&quot;".to_string(),
            c => c.to_string(),
        })
        .collect();
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"40\" viewBox=\"0 0 {w} 40\">\
         <text x=\"16\" y=\"24\" font-family=\"sans-serif\" font-size=\"13\">the plot could not be drawn: {why}</text></svg>",
        w = chart::WIDTH
    )
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

/// Probes of plotters' SVG output, for the plot tests.
#[cfg(test)]
pub(crate) mod svg_probe {
    use plotters::style::RGBColor;

    /// `fill="#RRGGBB"` as plotters writes it.
    pub(crate) fn fill(c: RGBColor) -> String {
        format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2)
    }

    /// The attributes of each `<rect .../>` filled with `c`.
    pub(crate) fn rects_filled(svg: &str, c: RGBColor) -> Vec<&str> {
        let fill = fill(c);
        svg.split("<rect")
            .skip(1)
            .map(|r| r.split("/>").next().unwrap())
            .filter(|r| r.contains(&fill))
            .collect()
    }

    /// Every `<text>` element's content, trimmed.
    pub(crate) fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .map(|t| {
                let body = &t[t.find('>').unwrap() + 1..];
                body[..body.find("</text>").unwrap()].trim().to_string()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::svg_probe::{fill, texts};
    use super::*;
    use crate::fixtures;
    use crate::stats::RatioEstimate;

    /// How many rectangles are filled with `c`.
    fn rects(svg: &str, c: RGBColor) -> usize {
        svg_probe::rects_filled(svg, c).len()
    }

    #[test]
    fn every_results_plot_is_drawn() {
        let results = fixtures::results();
        let plots = plots(&results);
        let names: Vec<&str> = plots.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["throughput", "samples", "ratios", "time"]);
        for p in &plots {
            assert!(p.svg.starts_with("<svg"), "{}", &p.svg[..40]);
            assert!(p.svg.contains(&format!("width=\"{}\"", p.width)));
            assert!(p.svg.contains(&format!("height=\"{}\"", p.height)));
            assert_eq!(p.width, 800);
            assert!(p.height > 150 && p.height < 1200, "{}", p.height);
            assert!(texts(&p.svg).contains(&p.title), "{}", p.name);
        }
    }

    #[test]
    fn throughput_has_axis_labels_legend_and_one_bar_per_measured_case() {
        let results = fixtures::results();
        let plot = throughput_plot(&results).unwrap();
        let texts = texts(&plot.svg);
        assert!(
            texts.contains(&"throughput, GB/s (10^9 bytes/s)".to_string()),
            "{texts:?}"
        );
        // Legend entries and row labels: each method twice.
        for label in ["read", "mmap", "mmap-copy"] {
            assert_eq!(
                texts.iter().filter(|t| *t == label).count(),
                2,
                "{label}: {texts:?}"
            );
        }
        assert!(texts.contains(&"95% CI".to_string()));
        assert!(texts.contains(&"seq 16 KiB sum, warm; 1 GiB file".to_string()));
        assert!(texts.contains(&"no samples (2 failed)".to_string()));
        // read, mmap, mmap-copy get the first three colours: one bar each
        // for read and mmap plus a legend swatch; mmap-copy only the swatch.
        assert_eq!(rects(&plot.svg, PALETTE[0]), 2);
        assert_eq!(rects(&plot.svg, PALETTE[1]), 2);
        assert_eq!(rects(&plot.svg, PALETTE[2]), 1);
        // Tick labels in GB/s: the axis reaches past 2.1 GB/s (read's CI).
        assert!(texts.contains(&"2".to_string()), "{texts:?}");
        assert!(!texts.iter().any(|t| t.contains("e9")), "{texts:?}");

        // A method's options share its colour; the row label tells them apart.
        let mut options = results.clone();
        options.cases[1].label = "mmap(populate=map)".to_string();
        let plot = throughput_plot(&options).unwrap();
        let texts = super::tests::texts(&plot.svg);
        assert_eq!(texts.iter().filter(|t| *t == "mmap").count(), 1, "legend");
        assert!(texts.contains(&"mmap(populate=map)".to_string()));
        assert_eq!(rects(&plot.svg, PALETTE[1]), 2);
    }

    #[test]
    fn the_forest_plot_shows_ratio_ci_and_the_line_at_one() {
        let results = fixtures::results();
        let plot = ratio_plot(&results).unwrap();
        let texts = texts(&plot.svg);
        assert!(texts.contains(&"mmap".to_string()), "{texts:?}");
        assert!(
            texts.contains(&"seq 16 KiB sum, warm; 1 GiB file: against read".to_string()),
            "{texts:?}"
        );
        assert!(texts.contains(&"1.42 [1.38–1.46]".to_string()), "{texts:?}");
        assert!(texts.contains(&"faster (CI above 1)".to_string()));
        assert!(!texts.iter().any(|t| t.starts_with("slower")));
        assert!(texts.contains(&"1 = as fast as the baseline".to_string()));
        assert!(
            texts
                .iter()
                .any(|t| t.contains("ratio") && t.contains("log")),
            "{texts:?}"
        );
        // The axis includes 1 and the CI, with ticks on both sides of 1.4.
        assert!(texts.contains(&"1".to_string()), "{texts:?}");
        // One green dot for the one comparison, one for the legend.
        assert_eq!(plot.svg.matches(&fill(FASTER)).count(), 2);

        // A comparison that cannot be drawn says so instead of vanishing.
        let mut bad = results.clone();
        bad.comparisons[0].throughput_ratio = RatioEstimate {
            ratio: 0.0,
            ci95_low: 0.0,
            ci95_high: 0.0,
            pairs: 2,
        };
        let texts = super::tests::texts(&ratio_plot(&bad).unwrap().svg);
        assert!(texts.contains(&"ratio not drawable on a log axis".to_string()));
        assert!(ratio_plot(&RunResults {
            comparisons: vec![],
            ..results
        })
        .is_none());
    }

    #[test]
    fn the_time_plot_stacks_user_sys_and_off_cpu() {
        let results = fixtures::results();
        let plot = time_plot(&results).unwrap();
        let texts = texts(&plot.svg);
        for t in [
            "user CPU",
            "sys CPU",
            "off CPU (waiting)",
            "main loop ends",
            "mean time per trial, ms",
        ] {
            assert!(texts.contains(&t.to_string()), "{t}: {texts:?}");
        }
        // Two measured cases: a user, a sys and an off-CPU segment each, plus the swatches.
        assert_eq!(rects(&plot.svg, USER), 3);
        assert_eq!(rects(&plot.svg, SYS), 3);
        assert_eq!(rects(&plot.svg, OFF_CPU), 3);
    }

    #[test]
    fn no_summaries_no_plots() {
        let mut results = fixtures::results();
        for c in &mut results.cases {
            c.summary = None;
        }
        results.comparisons.clear();
        assert!(plots(&results).is_empty());
    }

    #[test]
    fn times_spanning_more_than_thirty_times_get_a_panel_per_group() {
        let mut results = fixtures::results();
        // A second group (cold) whose trial takes 100 times as long.
        let mut cold = results.cases[0].clone();
        cold.id = 9;
        cold.case.cache = crate::plan::CacheState::Cold;
        let s = cold.summary.as_mut().unwrap();
        s.time_ns.mean *= 100.0;
        s.loop_ns.mean *= 100.0;
        s.throughput_bps.mean /= 100.0;
        results.cases.push(cold);
        let names: Vec<String> = plots(&results).into_iter().map(|p| p.name).collect();
        assert!(names.contains(&"time-1".to_string()), "{names:?}");
        assert!(names.contains(&"time-2".to_string()), "{names:?}");
        assert!(!names.contains(&"time".to_string()), "{names:?}");
        // The throughput means span 100x too: a log axis.
        let throughput = throughput_plot(&results).unwrap();
        assert!(throughput.svg.contains("log scale"), "log axis");
    }

    #[test]
    fn text_is_escaped_in_the_svg() {
        let mut results = fixtures::results();
        results.cases[0].label = "<read & \"friends\">".to_string();
        let plot = throughput_plot(&results).unwrap();
        assert!(plot.svg.contains("&lt;read &amp; "), "escaped");
        assert!(!plot.svg.contains("<read"), "not raw");
    }

    #[test]
    fn series_plots_take_published_values_beside_measured_ones() {
        let measured = Series {
            label: "measured (mmap / read)".to_string(),
            points: vec![
                (1.0, 1.3, Some((1.2, 1.4))),
                (4.0, 1.1, Some((1.0, 1.2))),
                (2.0, 1.2, None),
            ],
            style: SeriesStyle::Measured,
        };
        let published = Series {
            label: "Sun 2002".to_string(),
            points: vec![(1.0, 1.5, None), (2.0, 1.25, None), (4.0, 1.0, None)],
            style: SeriesStyle::Published,
        };
        let plot = series_plot(
            "sun2002",
            "Ratio vs scale factor",
            Axis::linear("scale factor"),
            Axis::linear("mmap / read throughput"),
            &[measured.clone(), published.clone()],
        );
        let texts = texts(&plot.svg);
        for t in [
            "Ratio vs scale factor",
            "scale factor",
            "mmap / read throughput",
            "measured (mmap / read)",
            "Sun 2002",
        ] {
            assert!(texts.contains(&t.to_string()), "{t}: {texts:?}");
        }
        assert!(plot.svg.contains("<polyline"), "lines are drawn");
        assert!(!plot.caption.contains("could not be drawn"));

        // Log-log, with points a log axis cannot show.
        let mut sizes = measured;
        sizes.points.push((0.0, 1.0, None));
        sizes.points.push((8.0, f64::NAN, None));
        let plot = series_plot(
            "liege2018",
            "Time vs file size",
            Axis::log("file size, MiB"),
            Axis::log("time, ms"),
            &[sizes, published],
        );
        assert!(
            plot.caption.contains("2 point(s) could not be drawn"),
            "{}",
            plot.caption
        );
        assert!(plot.png().unwrap().starts_with(b"\x89PNG"));
    }

    #[test]
    fn writes_svg_and_png_files() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("plots");
        let written = write_plots(&fixtures::results(), &out).unwrap();
        let names: Vec<String> = written
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "throughput.svg",
                "throughput.png",
                "samples.svg",
                "samples.png",
                "ratios.svg",
                "ratios.png",
                "time.svg",
                "time.png"
            ]
        );
        for path in &written {
            let bytes = std::fs::read(path).unwrap();
            if path.extension().unwrap() == "png" {
                let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
                let info = decoder.read_info().unwrap();
                assert_eq!(info.info().width, 800);
            } else {
                assert!(bytes.starts_with(b"<svg"));
            }
        }
        assert_eq!(std::fs::read_dir(&out).unwrap().count(), 8);
    }
}
