//! Plots of a run's results, as SVG (inlined by the HTML report) and PNG.
//!
//! [`plots`] draws, from a [`crate::results::RunResults`] alone:
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
use std::io;
use std::path::{Path, PathBuf};

use plotters::style::RGBColor;

use self::chart::{ChartRow, RowChart, XyChart, XySeries};
use super::row_limit::{thousands, MAX_PLOT_ROWS};
use crate::error::{Error, Result};
use crate::files::atomic::{write_atomically, SHARED_MODE};

pub use self::bars::{Bar, BarChart, BarGroup, BarPanel, Hue, Key, Segment};
pub use self::heat::{HeatCell, HeatChart};

mod axis;
mod bars;
mod chart;
pub mod flame;
mod font;
mod heat;
pub mod run;
pub mod strip;
pub mod time_split;

pub use run::{
    cycles_plot, plots, ratio_plot, throughput_plot, time_plot, write_plots, MAX_GROUP_PLOTS,
};

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
    use crate::results::RunResults;
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
