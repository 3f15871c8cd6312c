//! The two chart shapes every plot is drawn with, rendered to SVG by plotters.
//!
//! - [`RowChart`]: one row per item, under group headings, with marks
//!   (bars, intervals, points, ticks) along one numeric x axis. Labels sit
//!   left of the rows and optional notes right of them. Used for throughput
//!   bars, forest plots of ratios and stacked time bars.
//! - [`XyChart`]: series of points on linear or logarithmic axes, measured
//!   series drawn solid with CI whiskers, published ones dashed with hollow
//!   markers.
//!
//! Both put a title and a legend above the chart, size text in pixels (the
//! SVG's `font-size` is the pixel size given here) and lay it out with the
//! embedded font's metrics ([`super::font`]). Tick positions are computed
//! here ([`ticks`]), so that log axes over a narrow range still get labels.
use std::error::Error as StdError;

use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::{padded_range, tick_label, ticks};
use super::font::{fit, text_width};
use super::{AxisScale, Point, SeriesStyle};

/// Width of every plot, px.
pub(crate) const WIDTH: u32 = 800;
/// Title size, px.
pub(super) const TITLE_PX: f64 = 18.0;
/// Labels, legend and axis descriptions, px.
pub(super) const TEXT_PX: f64 = 13.0;
/// Tick labels, px.
pub(super) const TICK_PX: f64 = 12.0;
/// Height of one row of a [`RowChart`], px.
const ROW_H: u32 = 26;
/// Height of one line of the legend, px.
const LEGEND_LINE_H: u32 = 20;
/// Outer padding, px.
pub(super) const PAD: u32 = 16;
/// Height of the x axis with its tick labels and description, px.
const X_AXIS_H: u32 = 48;
/// Height of the plotting area of an [`XyChart`], px.
const XY_PLOT_H: u32 = 380;

/// Text and axis colour.
pub(crate) const INK: RGBColor = RGBColor(34, 34, 34);
/// Secondary text.
pub(super) const MUTED: RGBColor = RGBColor(110, 110, 110);
/// Grid lines.
pub(super) const GRID: RGBColor = RGBColor(225, 225, 225);

/// What a drawing function returns.
pub(super) type Drawn<T = ()> = Result<T, Box<dyn StdError>>;

/// How a legend entry is drawn.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Swatch {
    /// A filled box (bars).
    Fill(RGBColor),
    /// A whisker with caps (a 95% CI).
    Interval,
    /// A short vertical bar (a marker on a bar).
    Tick,
    /// A dashed vertical line (a reference value).
    Reference,
    /// A filled dot.
    Point(RGBColor),
    /// A line with a marker: solid with a filled dot, or dashed with a hollow square.
    Line(RGBColor, SeriesStyle),
    /// A pale box with an outline: a published bar.
    Hollow(RGBColor),
}

/// One entry of a legend.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LegendEntry {
    /// Its text.
    pub label: String,
    /// Its symbol.
    pub swatch: Swatch,
}

/// A mark drawn in a row of a [`RowChart`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Mark {
    /// A bar from `from` to `to`.
    Bar {
        /// Where it starts.
        from: f64,
        /// Where it ends.
        to: f64,
        /// Its fill.
        color: RGBColor,
    },
    /// A whisker with caps from `low` to `high`.
    Interval {
        /// Lower end.
        low: f64,
        /// Upper end.
        high: f64,
    },
    /// A dot.
    Point {
        /// Where.
        x: f64,
        /// Its fill.
        color: RGBColor,
    },
    /// A short vertical bar across the row.
    Tick {
        /// Where.
        x: f64,
    },
    /// Text at the start of the axis, for rows with nothing to draw.
    Text(String),
}

/// A row of a [`RowChart`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ChartRow {
    /// A group heading across the chart.
    Heading(String),
    /// An item: a label on the left, marks, an optional note on the right.
    Item {
        /// Left of the row.
        label: String,
        /// What is drawn.
        marks: Vec<Mark>,
        /// Right of the row.
        note: Option<String>,
    },
}

/// Rows of marks along one numeric x axis.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RowChart {
    /// The x axis description, with its unit.
    pub x_label: String,
    /// Linear or logarithmic x.
    pub x_scale: AxisScale,
    /// The x range shown.
    pub x_range: (f64, f64),
    /// Rows, top to bottom.
    pub rows: Vec<ChartRow>,
    /// Legend entries.
    pub legend: Vec<LegendEntry>,
    /// A dashed vertical line at this x.
    pub reference: Option<f64>,
}

/// One series of an [`XyChart`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct XySeries {
    /// Legend text.
    pub label: String,
    /// Line and marker colour.
    pub color: RGBColor,
    /// Solid (measured) or dashed (published).
    pub style: SeriesStyle,
    /// `(x, y, optional (low, high) of y)`, drawn in x order.
    pub points: Vec<Point>,
}

/// Series of points on two numeric axes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct XyChart {
    /// x axis description.
    pub x_label: String,
    /// y axis description.
    pub y_label: String,
    /// x scale.
    pub x_scale: AxisScale,
    /// y scale.
    pub y_scale: AxisScale,
    /// The series.
    pub series: Vec<XySeries>,
}

/// A text style of `px` pixels (plotters writes `font-size` as size / 1.24).
pub(super) fn font(px: f64) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", px * 1.24).into_font()).color(&INK)
}

/// A bold text style of `px` pixels.
pub(super) fn bold(px: f64) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", px * 1.24, FontStyle::Bold).into_font()).color(&INK)
}

/// A numeric axis, linear or logarithmic, with the tick positions given.
///
/// plotters' own log axis places few or no labels on a range narrower than
/// a decade, and its linear axis with custom key points lacks a default
/// formatter; this one does both scales with [`ticks`].
#[derive(Clone, Debug)]
pub(crate) struct NumAxis {
    lo: f64,
    hi: f64,
    scale: AxisScale,
    ticks: Vec<f64>,
}

impl NumAxis {
    /// `[lo, hi]` on `scale`, ticked by [`ticks`].
    pub(crate) fn new(lo: f64, hi: f64, scale: AxisScale) -> NumAxis {
        NumAxis {
            lo,
            hi,
            scale,
            ticks: ticks(lo, hi, scale),
        }
    }

    fn position(&self, v: f64) -> f64 {
        match self.scale {
            AxisScale::Linear => (v - self.lo) / (self.hi - self.lo),
            AxisScale::Log => (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln()),
        }
    }
}

impl Ranged for NumAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let t = self.position(*value);
        let t = if t.is_finite() {
            t.clamp(-10.0, 10.0)
        } else {
            0.0
        };
        limit.0 + (t * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.max_num_points() == 0 {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

/// The legend's lines: for each entry, its top-left corner.
fn legend_layout(entries: &[LegendEntry]) -> (Vec<(i32, i32)>, u32) {
    let mut positions = Vec::new();
    let (mut x, mut line) = (PAD as f64, 0u32);
    for entry in entries {
        let w = 22.0 + text_width(&entry.label, TEXT_PX) + 18.0;
        if x + w > (WIDTH - PAD) as f64 && x > PAD as f64 {
            x = PAD as f64;
            line += 1;
        }
        positions.push((x as i32, (line * LEGEND_LINE_H) as i32));
        x += w;
    }
    let lines = if entries.is_empty() { 0 } else { line + 1 };
    (positions, lines * LEGEND_LINE_H)
}

/// Height of the title and legend block.
pub(super) fn header_height(legend: &[LegendEntry]) -> u32 {
    PAD + 24 + legend_layout(legend).1 + 10
}

/// Draws the title and the legend; returns the y where the chart starts.
pub(super) fn draw_header<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    legend: &[LegendEntry],
) -> Drawn<u32>
where
    DB::ErrorType: 'static,
{
    let title = fit(title, TITLE_PX, (WIDTH - 2 * PAD) as f64);
    root.draw(&Text::new(
        title,
        (PAD as i32, PAD as i32),
        font(TITLE_PX).pos(Pos::new(HPos::Left, VPos::Top)),
    ))?;
    let top = (PAD + 28) as i32;
    let (positions, _) = legend_layout(legend);
    for (entry, (x, y)) in legend.iter().zip(positions) {
        let cy = top + y + (LEGEND_LINE_H / 2) as i32;
        draw_swatch(root, &entry.swatch, x, cy)?;
        root.draw(&Text::new(
            entry.label.clone(),
            (x + 22, cy),
            font(TEXT_PX).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(header_height(legend))
}

/// Draws a legend symbol 16 px wide, left edge `x`, centred on `cy`.
fn draw_swatch<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    swatch: &Swatch,
    x: i32,
    cy: i32,
) -> Drawn
where
    DB::ErrorType: 'static,
{
    let line = |a: (i32, i32), b: (i32, i32), width: u32| {
        PathElement::new(vec![a, b], INK.stroke_width(width))
    };
    match swatch {
        Swatch::Fill(color) => root.draw(&Rectangle::new(
            [(x, cy - 6), (x + 16, cy + 6)],
            color.filled(),
        ))?,
        Swatch::Hollow(color) => {
            root.draw(&Rectangle::new(
                [(x, cy - 6), (x + 16, cy + 6)],
                pale(*color).filled(),
            ))?;
            root.draw(&Rectangle::new(
                [(x, cy - 6), (x + 16, cy + 6)],
                color.stroke_width(2),
            ))?;
        }
        Swatch::Interval => {
            root.draw(&line((x, cy), (x + 16, cy), 2))?;
            root.draw(&line((x, cy - 5), (x, cy + 5), 2))?;
            root.draw(&line((x + 16, cy - 5), (x + 16, cy + 5), 2))?;
        }
        Swatch::Tick => root.draw(&line((x + 8, cy - 8), (x + 8, cy + 8), 3))?,
        Swatch::Reference => {
            root.draw(&line((x + 8, cy - 9), (x + 8, cy - 3), 2))?;
            root.draw(&line((x + 8, cy + 3), (x + 8, cy + 9), 2))?;
        }
        Swatch::Point(color) => {
            root.draw(&Circle::new((x + 8, cy), 5, color.filled()))?;
            root.draw(&Circle::new((x + 8, cy), 5, INK.stroke_width(1)))?;
        }
        Swatch::Line(color, style) => {
            let stroke = color.stroke_width(2);
            match style {
                SeriesStyle::Measured => {
                    root.draw(&PathElement::new(vec![(x, cy), (x + 16, cy)], stroke))?;
                    root.draw(&Circle::new((x + 8, cy), 4, color.filled()))?;
                }
                SeriesStyle::Published => {
                    root.draw(&PathElement::new(vec![(x, cy), (x + 4, cy)], stroke))?;
                    root.draw(&PathElement::new(vec![(x + 12, cy), (x + 16, cy)], stroke))?;
                    root.draw(&Rectangle::new([(x + 4, cy - 4), (x + 12, cy + 4)], stroke))?;
                }
            }
        }
    }
    Ok(())
}

impl RowChart {
    /// The rows' labels as drawn, at most `max` px wide.
    fn label_width(&self) -> f64 {
        let widest = self
            .rows
            .iter()
            .filter_map(|r| match r {
                ChartRow::Item { label, .. } => Some(text_width(label, TEXT_PX)),
                ChartRow::Heading(_) => None,
            })
            .fold(0.0, f64::max);
        (widest + 20.0).clamp(60.0, 330.0)
    }

    fn note_width(&self) -> f64 {
        let widest = self
            .rows
            .iter()
            .filter_map(|r| match r {
                ChartRow::Item { note: Some(n), .. } => Some(text_width(n, TEXT_PX)),
                _ => None,
            })
            .fold(0.0, f64::max);
        if widest > 0.0 {
            widest + 16.0
        } else {
            PAD as f64 + 8.0
        }
    }

    /// The height of the whole plot, px.
    pub(crate) fn height(&self) -> u32 {
        header_height(&self.legend) + self.rows.len() as u32 * ROW_H + 8 + X_AXIS_H + PAD / 2
    }

    /// Renders the chart under `title` as an SVG document.
    pub(crate) fn render(&self, title: &str) -> Drawn<String> {
        let height = self.height();
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
            root.fill(&WHITE)?;
            let top = draw_header(&root, title, &self.legend)?;
            self.draw_rows(&root, top)?;
            root.present()?;
        }
        Ok(svg)
    }

    fn draw_rows(&self, root: &DrawingArea<SVGBackend, Shift>, top: u32) -> Drawn {
        let (x_lo, x_hi) = self.x_range;
        let x = NumAxis::new(x_lo, x_hi, self.x_scale);
        let label_w = self.label_width();
        let n = self.rows.len() as f64;
        let area = root.margin(top, PAD / 2, 0, self.note_width() as u32);
        let mut chart = ChartBuilder::on(&area)
            .x_label_area_size(X_AXIS_H)
            .y_label_area_size(label_w as u32)
            .build_cartesian_2d(x, 0.0..n)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_label_formatter(&|v| tick_label(*v))
            .x_desc(self.x_label.as_str())
            .label_style(font(TICK_PX))
            .axis_desc_style(font(TEXT_PX))
            .bold_line_style(GRID)
            .light_line_style(TRANSPARENT)
            .axis_style(INK)
            .draw()?;
        let plot = chart.plotting_area();
        if let Some(at) = self.reference {
            for segment in dash_segments(0.0, n, 6.0 / ROW_H as f64, 4.0 / ROW_H as f64) {
                plot.draw(&PathElement::new(
                    vec![(at, segment.0), (at, segment.1)],
                    INK.stroke_width(2),
                ))?;
            }
        }
        for (i, row) in self.rows.iter().enumerate() {
            let yc = n - i as f64 - 0.5;
            let (px, py) = chart.backend_coord(&(x_lo, yc));
            let (right, _) = chart.backend_coord(&(x_hi, yc));
            match row {
                ChartRow::Heading(text) => {
                    if i > 0 {
                        plot.draw(&PathElement::new(
                            vec![(x_lo, yc + 0.5), (x_hi, yc + 0.5)],
                            MUTED.stroke_width(1),
                        ))?;
                    }
                    let text = fit(text, TEXT_PX, (right - px - 12) as f64);
                    let w = text_width(&text, TEXT_PX) as i32;
                    root.draw(&Rectangle::new(
                        [(px + 2, py - 9), (px + w + 10, py + 9)],
                        WHITE.filled(),
                    ))?;
                    root.draw(&Text::new(
                        text,
                        (px + 6, py),
                        bold(TEXT_PX).pos(Pos::new(HPos::Left, VPos::Center)),
                    ))?;
                }
                ChartRow::Item { label, marks, note } => {
                    root.draw(&Text::new(
                        fit(label, TEXT_PX, label_w - 20.0),
                        (px - 8, py),
                        font(TEXT_PX).pos(Pos::new(HPos::Right, VPos::Center)),
                    ))?;
                    for mark in marks {
                        draw_mark(plot, mark, yc, x_lo)?;
                    }
                    if let Some(note) = note {
                        root.draw(&Text::new(
                            note.clone(),
                            (right + 8, py),
                            font(TEXT_PX).pos(Pos::new(HPos::Left, VPos::Center)),
                        ))?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Draws one mark centred on row `yc`.
fn draw_mark<DB, CT>(plot: &DrawingArea<DB, CT>, mark: &Mark, yc: f64, x_lo: f64) -> Drawn
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    CT: CoordTranslate<From = (f64, f64)>,
{
    let line =
        |a: (f64, f64), b: (f64, f64), w: u32| PathElement::new(vec![a, b], INK.stroke_width(w));
    match mark {
        Mark::Bar { from, to, color } => {
            plot.draw(&Rectangle::new(
                [(*from, yc - 0.32), (*to, yc + 0.32)],
                color.filled(),
            ))?;
        }
        Mark::Interval { low, high } => {
            plot.draw(&line((*low, yc), (*high, yc), 2))?;
            plot.draw(&line((*low, yc - 0.2), (*low, yc + 0.2), 2))?;
            plot.draw(&line((*high, yc - 0.2), (*high, yc + 0.2), 2))?;
        }
        Mark::Point { x, color } => {
            plot.draw(&Circle::new((*x, yc), 5, color.filled()))?;
            plot.draw(&Circle::new((*x, yc), 5, INK.stroke_width(1)))?;
        }
        Mark::Tick { x } => plot.draw(&line((*x, yc - 0.42), (*x, yc + 0.42), 3))?,
        Mark::Text(text) => plot.draw(
            &(EmptyElement::at((x_lo, yc))
                + Text::new(
                    text.clone(),
                    (6, 0),
                    font(TEXT_PX)
                        .color(&MUTED)
                        .pos(Pos::new(HPos::Left, VPos::Center)),
                )),
        )?,
    }
    Ok(())
}

/// `[start, end]` cut into dashes of length `dash` separated by `gap`.
fn dash_segments(start: f64, end: f64, dash: f64, gap: f64) -> Vec<(f64, f64)> {
    let mut segments = Vec::new();
    let mut at = start;
    while at < end {
        segments.push((at, (at + dash).min(end)));
        at += dash + gap;
    }
    segments
}

impl XyChart {
    /// The finite points each axis can show, and how many cannot be shown.
    fn drawable(&self) -> (Vec<Vec<Point>>, usize) {
        let ok_x = |v: f64| v.is_finite() && (self.x_scale == AxisScale::Linear || v > 0.0);
        let ok_y = |v: f64| v.is_finite() && (self.y_scale == AxisScale::Linear || v > 0.0);
        let mut dropped = 0;
        let series = self
            .series
            .iter()
            .map(|s| {
                let mut points: Vec<_> = s
                    .points
                    .iter()
                    .filter(|(x, y, _)| {
                        let keep = ok_x(*x) && ok_y(*y);
                        dropped += usize::from(!keep);
                        keep
                    })
                    .map(|&(x, y, ci)| (x, y, ci.filter(|(l, h)| ok_y(*l) && ok_y(*h))))
                    .collect();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                points
            })
            .collect();
        (series, dropped)
    }

    /// The height of the whole plot, px.
    pub(crate) fn height(&self) -> u32 {
        header_height(&self.legend()) + XY_PLOT_H + X_AXIS_H + PAD
    }

    fn legend(&self) -> Vec<LegendEntry> {
        self.series
            .iter()
            .map(|s| LegendEntry {
                label: s.label.clone(),
                swatch: Swatch::Line(s.color, s.style),
            })
            .collect()
    }

    /// Renders the chart under `title`; also returns how many points could
    /// not be drawn (not finite, or not positive on a log axis).
    pub(crate) fn render(&self, title: &str) -> Drawn<(String, usize)> {
        let (series, dropped) = self.drawable();
        let xs: Vec<f64> = series.iter().flatten().map(|p| p.0).collect();
        let ys: Vec<f64> = series
            .iter()
            .flatten()
            .flat_map(|&(_, y, ci)| [Some(y), ci.map(|c| c.0), ci.map(|c| c.1)])
            .flatten()
            .collect();
        let (x_lo, x_hi) = padded_range(&xs, self.x_scale);
        let (y_lo, y_hi) = padded_range(&ys, self.y_scale);
        let x = NumAxis::new(x_lo, x_hi, self.x_scale);
        let y = NumAxis::new(y_lo, y_hi, self.y_scale);
        let y_label_w = y
            .ticks
            .iter()
            .map(|v| text_width(&tick_label(*v), TICK_PX))
            .fold(0.0, f64::max)
            + 40.0;
        let mut svg = String::new();
        {
            let root =
                SVGBackend::with_string(&mut svg, (WIDTH, self.height())).into_drawing_area();
            root.fill(&WHITE)?;
            let top = draw_header(&root, title, &self.legend())?;
            let area = root.margin(top, PAD, 0, PAD + 8);
            let mut chart = ChartBuilder::on(&area)
                .x_label_area_size(X_AXIS_H)
                .y_label_area_size(y_label_w as u32)
                .build_cartesian_2d(x, y)?;
            self.draw_series(&mut chart, &series)?;
            root.present()?;
        }
        Ok((svg, dropped))
    }

    fn draw_series(
        &self,
        chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<NumAxis, NumAxis>>,
        series: &[Vec<Point>],
    ) -> Drawn {
        chart
            .configure_mesh()
            .x_label_formatter(&|v| tick_label(*v))
            .y_label_formatter(&|v| tick_label(*v))
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .label_style(font(TICK_PX))
            .axis_desc_style(font(TEXT_PX))
            .bold_line_style(GRID)
            .light_line_style(TRANSPARENT)
            .axis_style(INK)
            .draw()?;
        for (spec, points) in self.series.iter().zip(series) {
            let color = spec.color;
            let xy: Vec<(f64, f64)> = points.iter().map(|p| (p.0, p.1)).collect();
            match spec.style {
                SeriesStyle::Measured => {
                    chart.draw_series(LineSeries::new(xy.clone(), color.stroke_width(2)))?;
                }
                SeriesStyle::Published => {
                    chart.draw_series(DashedLineSeries::new(
                        xy.clone(),
                        7,
                        5,
                        color.stroke_width(2),
                    ))?;
                }
            }
            for &(px, py, ci) in points {
                if let Some((low, high)) = ci {
                    let stroke = color.stroke_width(2);
                    chart.draw_series(std::iter::once(PathElement::new(
                        vec![(px, low), (px, high)],
                        stroke,
                    )))?;
                    for end in [low, high] {
                        chart.draw_series(std::iter::once(
                            EmptyElement::at((px, end))
                                + PathElement::new(vec![(-5, 0), (5, 0)], stroke),
                        ))?;
                    }
                }
                match spec.style {
                    SeriesStyle::Measured => {
                        chart.draw_series(std::iter::once(Circle::new(
                            (px, py),
                            4,
                            color.filled(),
                        )))?;
                    }
                    SeriesStyle::Published => {
                        chart.draw_series(std::iter::once(
                            EmptyElement::at((px, py))
                                + Rectangle::new([(-4, -4), (4, 4)], WHITE.filled())
                                + Rectangle::new([(-4, -4), (4, 4)], color.stroke_width(2)),
                        ))?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// `c` mixed 60% towards white: a published bar's fill.
pub(crate) fn pale(c: RGBColor) -> RGBColor {
    let mix = |v: u8| (f64::from(v) + (255.0 - f64::from(v)) * 0.6).round() as u8;
    RGBColor(mix(c.0), mix(c.1), mix(c.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_wraps() {
        let entry = |label: &str| LegendEntry {
            label: label.to_string(),
            swatch: Swatch::Tick,
        };
        let (_, one) = legend_layout(&[entry("a"), entry("b")]);
        assert_eq!(one, LEGEND_LINE_H);
        let many: Vec<_> = (0..12)
            .map(|i| entry(&format!("entry number {i}")))
            .collect();
        let (positions, h) = legend_layout(&many);
        assert!(h > LEGEND_LINE_H);
        assert!(positions.iter().all(|(x, _)| *x < WIDTH as i32));
        assert_eq!(legend_layout(&[]).1, 0);
    }
}
