//! Bar charts: panels of grouped bars, each bar a stack of segments, with an
//! optional 95% CI whisker and an optional note above it.
//!
//! This is the primitive the presets draw their studies' bar figures with
//! (user/sys/elapsed splits, throughput by block size). A [`BarChart`] is a
//! grid of [`BarPanel`]s, `columns` wide, each with its own y axis (so that
//! numbers of very different size, say a 2004 machine's minutes and this
//! machine's milliseconds, each fill their panel). A panel holds
//! [`BarGroup`]s along x, each a labelled cluster of [`Bar`]s.
//!
//! Measured bars are filled; published ones are pale with an outline, as the
//! published series of an x/y plot are hollow. Nothing here computes a
//! statistic: a bar is the sum of the segments it is given, a whisker the CI
//! it is given.
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::{tick_label, ticks};
use super::chart::{
    bold, draw_header, font, header_height, pale, Drawn, LegendEntry, NumAxis, Swatch, GRID, INK,
    MUTED, PAD, TEXT_PX, TICK_PX, WIDTH,
};
use super::font::{fit, text_width};
use super::{AxisScale, SeriesStyle};

/// Height of one panel, its title and x labels included, px.
const PANEL_H: u32 = 270;
/// Height of a panel's title line, px.
const PANEL_TITLE_H: u32 = 24;
/// Size of bar labels and notes, px.
const SMALL_PX: f64 = 11.0;
/// Width of one bar's slot, in x units (the bar fills [`BAR_FILL`] of it).
const SLOT: f64 = 1.0;
/// The share of its slot a bar fills.
const BAR_FILL: f64 = 0.78;
/// Space between groups, in x units.
const GROUP_GAP: f64 = 0.7;

/// What a segment's colour stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hue {
    /// User CPU time.
    User,
    /// System CPU time.
    Sys,
    /// Elapsed (wall-clock) time.
    Wall,
    /// The `i`th colour of the palette (a method, say).
    Series(usize),
}

impl Hue {
    /// Its colour.
    pub(crate) fn color(self) -> RGBColor {
        match self {
            Hue::User => super::USER,
            Hue::Sys => super::SYS,
            Hue::Wall => super::WALL,
            Hue::Series(i) => super::palette(i),
        }
    }
}

/// One segment of a stacked bar.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// Its length, in the panel's y unit.
    pub value: f64,
    /// Its colour.
    pub hue: Hue,
}

/// One bar: segments stacked from the axis up.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    /// A short label under the bar (`CPU`, `wall`); empty for none.
    pub label: String,
    /// Its segments, bottom first.
    pub segments: Vec<Segment>,
    /// The 95% CI of the bar's total, drawn as a whisker when known.
    pub ci: Option<(f64, f64)>,
    /// A note above the bar, e.g. a fault count.
    pub note: Option<String>,
    /// Filled (measured) or pale with an outline (published).
    pub style: SeriesStyle,
}

impl Bar {
    /// A measured bar of `segments`, no CI, no note.
    pub fn stacked(label: impl Into<String>, segments: Vec<Segment>) -> Bar {
        Bar {
            label: label.into(),
            segments,
            ci: None,
            note: None,
            style: SeriesStyle::Measured,
        }
    }

    /// A measured bar of one segment.
    pub fn single(label: impl Into<String>, value: f64, hue: Hue) -> Bar {
        Bar::stacked(label, vec![Segment { value, hue }])
    }

    /// With the 95% CI of its total, when known.
    pub fn with_ci(mut self, ci: Option<(f64, f64)>) -> Bar {
        self.ci = ci;
        self
    }

    /// With a note above it.
    pub fn with_note(mut self, note: impl Into<String>) -> Bar {
        self.note = Some(note.into());
        self
    }

    /// Drawn as a published value.
    pub fn published(mut self) -> Bar {
        self.style = SeriesStyle::Published;
        self
    }

    /// The top of the stack: the sum of the segments that can be drawn.
    pub fn top(&self) -> f64 {
        self.segments
            .iter()
            .map(|s| s.value)
            .filter(|v| v.is_finite() && *v > 0.0)
            .sum()
    }
}

/// A labelled cluster of bars.
#[derive(Clone, Debug, PartialEq)]
pub struct BarGroup {
    /// Under the cluster, e.g. `4 KiB` or `read`.
    pub label: String,
    /// Its bars, left to right.
    pub bars: Vec<Bar>,
}

/// One panel: groups of bars over one y axis.
#[derive(Clone, Debug, PartialEq)]
pub struct BarPanel {
    /// Above the panel, e.g. `seq, warm` or `published: Pentium II 400`.
    pub title: String,
    /// The y axis description, with its unit.
    pub y_label: String,
    /// Linear or log y.
    pub y_scale: AxisScale,
    /// The groups, left to right.
    pub groups: Vec<BarGroup>,
}

/// A legend entry: what a colour means.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// Its text.
    pub label: String,
    /// Its colour.
    pub hue: Hue,
}

/// Panels of bar groups, laid out `columns` to a row, under one legend.
#[derive(Clone, Debug, PartialEq)]
pub struct BarChart {
    /// The panels, left to right, then top to bottom.
    pub panels: Vec<BarPanel>,
    /// Panels per row (at least 1).
    pub columns: usize,
    /// What each colour means.
    pub keys: Vec<Key>,
}

impl BarChart {
    fn bars(&self) -> impl Iterator<Item = &Bar> {
        self.panels
            .iter()
            .flat_map(|p| p.groups.iter().flat_map(|g| &g.bars))
    }

    fn columns(&self) -> usize {
        self.columns.clamp(1, self.panels.len().max(1))
    }

    /// The legend: the keys, then the published style and the CI whisker when used.
    fn legend(&self) -> Vec<LegendEntry> {
        let mut legend: Vec<LegendEntry> = self
            .keys
            .iter()
            .map(|k| LegendEntry {
                label: k.label.clone(),
                swatch: Swatch::Fill(k.hue.color()),
            })
            .collect();
        if self.bars().any(|b| b.style == SeriesStyle::Published) {
            legend.push(LegendEntry {
                label: "published (pale, outlined)".to_string(),
                swatch: Swatch::Hollow(MUTED),
            });
        }
        if self.bars().any(|b| b.ci.is_some()) {
            legend.push(LegendEntry {
                label: "95% CI".to_string(),
                swatch: Swatch::Interval,
            });
        }
        legend
    }

    /// The height of the whole plot, px.
    pub(crate) fn height(&self) -> u32 {
        let rows = self.panels.len().div_ceil(self.columns()).max(1) as u32;
        header_height(&self.legend()) + rows * PANEL_H + PAD / 2
    }

    /// Segments that cannot be drawn (not finite, negative, or, on a log
    /// axis, a bar whose first segment is not positive).
    pub(crate) fn undrawable(&self) -> usize {
        self.panels
            .iter()
            .flat_map(|p| {
                p.groups
                    .iter()
                    .flat_map(|g| &g.bars)
                    .map(move |b| (p.y_scale, b))
            })
            .map(|(scale, b)| {
                b.segments
                    .iter()
                    .enumerate()
                    .filter(|(i, s)| {
                        !s.value.is_finite()
                            || s.value < 0.0
                            || (scale == AxisScale::Log && *i == 0 && s.value <= 0.0)
                    })
                    .count()
            })
            .sum()
    }

    /// Renders the chart under `title` as an SVG document.
    pub(crate) fn render(&self, title: &str) -> Drawn<String> {
        let mut svg = String::new();
        {
            let root =
                SVGBackend::with_string(&mut svg, (WIDTH, self.height())).into_drawing_area();
            root.fill(&WHITE)?;
            let top = draw_header(&root, title, &self.legend())?;
            let columns = self.columns();
            let panel_w = (WIDTH - 2 * PAD) / columns as u32;
            for (i, panel) in self.panels.iter().enumerate() {
                let (col, row) = ((i % columns) as u32, (i / columns) as u32);
                let x0 = (PAD + col * panel_w) as i32;
                let y0 = (top + row * PANEL_H) as i32;
                let area = root.clone().shrink((x0, y0), (panel_w, PANEL_H));
                draw_panel(&area, panel)?;
            }
            root.present()?;
        }
        Ok(svg)
    }
}

/// The x position (left edge of the slot) of every bar, per group, and the
/// total width in x units.
fn slots(groups: &[BarGroup]) -> (Vec<Vec<f64>>, f64) {
    let mut at = GROUP_GAP / 2.0;
    let mut out = Vec::new();
    for g in groups {
        let mut xs = Vec::new();
        for _ in &g.bars {
            xs.push(at);
            at += SLOT;
        }
        out.push(xs);
        at += GROUP_GAP;
    }
    (out, (at - GROUP_GAP / 2.0).max(SLOT))
}

/// The y range of a panel: from 0 (linear) or below the smallest bottom
/// segment or CI (log), to above the tallest bar or CI, with room for notes.
fn y_range(panel: &BarPanel) -> (f64, f64) {
    let bars: Vec<&Bar> = panel.groups.iter().flat_map(|g| &g.bars).collect();
    let ok = |v: &f64| v.is_finite() && *v > 0.0;
    let tops = bars
        .iter()
        .flat_map(|b| [Some(b.top()), b.ci.map(|c| c.1)])
        .flatten()
        .filter(ok);
    let hi = tops.fold(0.0, f64::max);
    let notes = bars.iter().any(|b| b.note.is_some());
    match panel.y_scale {
        AxisScale::Linear => {
            let hi = if hi > 0.0 { hi } else { 1.0 };
            (0.0, hi * if notes { 1.18 } else { 1.08 })
        }
        AxisScale::Log => {
            let lo = bars
                .iter()
                .flat_map(|b| [b.segments.first().map(|s| s.value), b.ci.map(|c| c.0)])
                .flatten()
                .filter(ok)
                .fold(f64::INFINITY, f64::min);
            if !(lo.is_finite() && hi > 0.0) {
                return (1.0, 10.0);
            }
            let span = (hi / lo).max(10.0);
            (
                lo / span.powf(0.08),
                hi * span.powf(if notes { 0.16 } else { 0.08 }),
            )
        }
    }
}

/// Draws one panel: its title, y axis, bars, whiskers, notes and x labels.
fn draw_panel(area: &DrawingArea<SVGBackend, Shift>, panel: &BarPanel) -> Drawn {
    let (panel_w, _) = area.dim_in_pixel();
    area.draw(&Text::new(
        fit(&panel.title, TEXT_PX, f64::from(panel_w) - 8.0),
        (4, 4),
        bold(TEXT_PX).pos(Pos::new(HPos::Left, VPos::Top)),
    ))?;
    let (xs, units) = slots(&panel.groups);
    let (y_lo, y_hi) = y_range(panel);
    let y = NumAxis::new(y_lo, y_hi, panel.y_scale);
    let y_label_w = ticks(y_lo, y_hi, panel.y_scale)
        .iter()
        .map(|v| text_width(&tick_label(*v), TICK_PX))
        .fold(0.0, f64::max)
        + 34.0;
    let labelled = panel
        .groups
        .iter()
        .flat_map(|g| &g.bars)
        .any(|b| !b.label.is_empty());
    let x_area = if labelled { 40 } else { 24 };
    let inner = area.margin(PANEL_TITLE_H, 4, 0, 10);
    let mut chart = ChartBuilder::on(&inner)
        .x_label_area_size(x_area)
        .y_label_area_size(y_label_w as u32)
        .build_cartesian_2d(0.0..units, y)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_label_formatter(&|v| tick_label(*v))
        .y_desc(panel.y_label.as_str())
        .label_style(font(TICK_PX))
        .axis_desc_style(font(TEXT_PX))
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .axis_style(INK)
        .draw()?;
    if panel.groups.iter().all(|g| g.bars.is_empty()) {
        chart.draw_series(std::iter::once(
            EmptyElement::at((0.0, y_hi))
                + Text::new(
                    "nothing measured",
                    (8, 16),
                    font(TEXT_PX)
                        .color(&MUTED)
                        .pos(Pos::new(HPos::Left, VPos::Center)),
                ),
        ))?;
    }
    let slot_px = {
        let (a, _) = chart.backend_coord(&(0.0, y_lo));
        let (b, _) = chart.backend_coord(&(SLOT, y_lo));
        f64::from(b - a)
    };
    // Notes are drawn last, so that a neighbouring bar cannot cover one.
    let mut notes: Vec<(f64, f64, &String)> = Vec::new();
    for (group, starts) in panel.groups.iter().zip(&xs) {
        for (bar, &x) in group.bars.iter().zip(starts) {
            let (x0, x1) = (
                x + SLOT * (1.0 - BAR_FILL) / 2.0,
                x + SLOT * (1.0 + BAR_FILL) / 2.0,
            );
            let xc = x + SLOT / 2.0;
            draw_segments(&mut chart, bar, (x0, x1), panel.y_scale, y_lo)?;
            let above = draw_whisker(&mut chart, bar, xc, panel.y_scale)?;
            if let Some(note) = &bar.note {
                notes.push((xc, if above > y_lo { above } else { y_lo }, note));
            }
            if !bar.label.is_empty() {
                let (px, py) = chart.backend_coord(&(xc, y_lo));
                area.draw(&Text::new(
                    fit(&bar.label, SMALL_PX, slot_px),
                    (
                        px - area.get_base_pixel().0,
                        py - area.get_base_pixel().1 + 6,
                    ),
                    font(SMALL_PX)
                        .color(&MUTED)
                        .pos(Pos::new(HPos::Center, VPos::Top)),
                ))?;
            }
        }
        if let (Some(first), Some(last)) = (starts.first(), starts.last()) {
            let (a, py) = chart.backend_coord(&(*first, y_lo));
            let (b, _) = chart.backend_coord(&(*last + SLOT, y_lo));
            let (bx, by) = area.get_base_pixel();
            area.draw(&Text::new(
                fit(
                    &group.label,
                    TEXT_PX,
                    f64::from(b - a) + slot_px * GROUP_GAP,
                ),
                ((a + b) / 2 - bx, py - by + if labelled { 22 } else { 6 }),
                font(TEXT_PX).pos(Pos::new(HPos::Center, VPos::Top)),
            ))?;
        }
    }
    for (x, y, note) in notes {
        chart.draw_series(std::iter::once(
            EmptyElement::at((x, y))
                + Text::new(
                    fit(note, SMALL_PX, slot_px * 2.2),
                    (0, -4),
                    font(SMALL_PX).pos(Pos::new(HPos::Center, VPos::Bottom)),
                ),
        ))?;
    }
    Ok(())
}

/// The chart a panel's bars are drawn on: x in bar slots, y on the panel's axis.
type PanelChart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, NumAxis>>;

/// Draws `bar`'s segments stacked from the bottom, between `x0` and `x1`:
/// measured ones filled, published ones pale with an outline. On a log
/// axis the first segment stands from the axis' bottom `y_lo` to its value;
/// a segment that is not a positive number is left out.
fn draw_segments(
    chart: &mut PanelChart,
    bar: &Bar,
    (x0, x1): (f64, f64),
    scale: AxisScale,
    y_lo: f64,
) -> Drawn {
    let mut base = if scale == AxisScale::Log { y_lo } else { 0.0 };
    for (i, seg) in bar.segments.iter().enumerate() {
        let drawable = seg.value.is_finite()
            && seg.value > 0.0
            && (scale == AxisScale::Linear || i > 0 || seg.value > y_lo);
        if !drawable {
            continue;
        }
        let top = if scale == AxisScale::Log && i == 0 {
            seg.value
        } else {
            base + seg.value
        };
        let color = seg.hue.color();
        match bar.style {
            SeriesStyle::Measured => {
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x0, base), (x1, top)],
                    color.filled(),
                )))?;
            }
            SeriesStyle::Published => {
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x0, base), (x1, top)],
                    pale(color).filled(),
                )))?;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x0, base), (x1, top)],
                    color.stroke_width(2),
                )))?;
            }
        }
        base = top;
    }
    Ok(())
}

/// Draws `bar`'s 95% CI whisker at `xc` when both ends can stand on the
/// axis; returns the highest point of the bar and its whisker (where its
/// note goes).
fn draw_whisker(chart: &mut PanelChart, bar: &Bar, xc: f64, scale: AxisScale) -> Drawn<f64> {
    let mut above = bar.top();
    if let Some((low, high)) = bar.ci {
        let ok = |v: f64| v.is_finite() && (scale == AxisScale::Linear || v > 0.0);
        if ok(low) && ok(high) {
            let stroke = INK.stroke_width(2);
            let cap = SLOT * BAR_FILL * 0.25;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(xc, low), (xc, high)],
                stroke,
            )))?;
            for end in [low, high] {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(xc - cap, end), (xc + cap, end)],
                    stroke,
                )))?;
            }
            above = above.max(high);
        }
    }
    Ok(above)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::report::plot::svg_probe::{rects_filled, texts};

    /// The heights in px of the rectangles filled with `c`.
    fn rects(svg: &str, c: RGBColor) -> Vec<f64> {
        rects_filled(svg, c)
            .into_iter()
            .map(|r| {
                let at = r.find("height=\"").unwrap() + 8;
                r[at..at + r[at..].find('"').unwrap()].parse().unwrap()
            })
            .collect()
    }

    fn split(user: f64, sys: f64) -> Vec<Segment> {
        vec![
            Segment {
                value: user,
                hue: Hue::User,
            },
            Segment {
                value: sys,
                hue: Hue::Sys,
            },
        ]
    }

    fn chart(bars: Vec<Bar>, scale: AxisScale) -> BarChart {
        BarChart {
            panels: vec![BarPanel {
                title: "panel one".into(),
                y_label: "time, s".into(),
                y_scale: scale,
                groups: vec![BarGroup {
                    label: "read".into(),
                    bars,
                }],
            }],
            columns: 2,
            keys: vec![
                Key {
                    label: "user".into(),
                    hue: Hue::User,
                },
                Key {
                    label: "sys".into(),
                    hue: Hue::Sys,
                },
            ],
        }
    }

    #[test]
    fn stacked_segments_add_up_to_the_bar() {
        // 1 + 3 stacked beside a single bar of 4: the same height.
        let c = chart(
            vec![
                Bar::stacked("CPU", split(1.0, 3.0)),
                Bar::single("wall", 4.0, Hue::User),
            ],
            AxisScale::Linear,
        );
        let svg = c.render("stacks").unwrap();
        let users = rects(&svg, Hue::User.color());
        let sys = rects(&svg, Hue::Sys.color());
        // The legend swatches are 12 px high; the bars come after them.
        assert_eq!(users.len(), 3, "{users:?}");
        assert_eq!(sys.len(), 2, "{sys:?}");
        let (user, single, sys) = (users[1], users[2], sys[1]);
        assert!(
            (user + sys - single).abs() <= 1.0,
            "{user} + {sys} vs {single}"
        );
        assert!((sys / user - 3.0).abs() < 0.1, "{sys} / {user}");
        assert_eq!(c.undrawable(), 0);
        let texts = texts(&svg);
        for t in [
            "stacks",
            "panel one",
            "time, s",
            "read",
            "CPU",
            "wall",
            "user",
        ] {
            assert!(texts.contains(&t.to_string()), "{t}: {texts:?}");
        }
        assert!(
            !texts.contains(&"95% CI".to_string()),
            "no CI, no legend entry"
        );
    }

    #[test]
    fn whiskers_only_where_a_ci_is_given() {
        let plain = chart(vec![Bar::single("", 2.0, Hue::Wall)], AxisScale::Linear)
            .render("t")
            .unwrap();
        let with_ci = chart(
            vec![Bar::single("", 2.0, Hue::Wall).with_ci(Some((1.8, 2.2)))],
            AxisScale::Linear,
        )
        .render("t")
        .unwrap();
        // A whisker is three paths: the stem and two caps.
        let paths = |svg: &str| svg.matches("<polyline").count() + svg.matches("<path").count();
        assert_eq!(
            paths(&with_ci),
            paths(&plain) + 3 + 3,
            "3 for the whisker, 3 for its legend swatch"
        );
        assert!(texts(&with_ci).contains(&"95% CI".to_string()));
    }

    #[test]
    fn notes_published_style_panels_and_log_axes() {
        let mut c = chart(
            vec![
                Bar::stacked("", split(0.01, 2.0))
                    .published()
                    .with_note("22328 faults"),
                Bar::stacked("", split(0.02, 0.5)),
            ],
            AxisScale::Log,
        );
        c.panels.push(BarPanel {
            title: "panel two".into(),
            ..c.panels[0].clone()
        });
        c.panels.push(BarPanel {
            title: "panel three".into(),
            groups: vec![],
            ..c.panels[0].clone()
        });
        let svg = c.render("many").unwrap();
        let texts = texts(&svg);
        assert_eq!(texts.iter().filter(|t| *t == "22328 faults").count(), 2);
        // Drawn after the bars, so no neighbouring bar covers a note.
        assert!(svg.find("22328 faults").unwrap() > svg.find("<rect").unwrap());
        let first_panel = &svg[..svg.find("panel two").unwrap()];
        assert!(first_panel.rfind("22328 faults") > first_panel.rfind("<rect"));
        assert!(texts.contains(&"published (pale, outlined)".to_string()));
        assert!(texts.contains(&"nothing measured".to_string()));
        for t in ["panel one", "panel two", "panel three"] {
            assert!(texts.contains(&t.to_string()), "{t}");
        }
        // Published segments are pale: two panels, two segments each.
        assert_eq!(rects(&svg, pale(Hue::User.color())).len(), 2);
        // Three panels two to a row: two rows.
        assert_eq!(
            c.height(),
            header_height(&c.legend()) + 2 * PANEL_H + PAD / 2
        );
        assert!(svg_to_png_ok(&svg));

        // A segment that cannot be drawn is counted, not drawn.
        let bad = chart(
            vec![Bar::stacked("", split(f64::NAN, 1.0))],
            AxisScale::Linear,
        );
        assert_eq!(bad.undrawable(), 1);
        assert!(bad.render("bad").is_ok());
    }

    fn svg_to_png_ok(svg: &str) -> bool {
        super::super::font::svg_to_png(svg).is_ok_and(|p| p.starts_with(b"\x89PNG"))
    }

    #[test]
    fn slots_leave_gaps_between_groups() {
        let group = |n: usize| BarGroup {
            label: String::new(),
            bars: vec![Bar::single("", 1.0, Hue::Wall); n],
        };
        let (xs, units) = slots(&[group(2), group(3)]);
        assert_eq!(xs[0], vec![GROUP_GAP / 2.0, GROUP_GAP / 2.0 + 1.0]);
        assert!((xs[1][0] - (GROUP_GAP / 2.0 + 2.0 + GROUP_GAP)).abs() < 1e-9);
        assert!((units - (5.0 + 2.0 * GROUP_GAP)).abs() < 1e-9);
    }
}
