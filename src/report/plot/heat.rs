//! A heat map: a grid of cells, one per (column, row) measured, each
//! filled with a colour and labelled with a short text; cells not measured
//! are left blank. Drawn with plotters' SVG backend, with the title and
//! legend of every other plot ([`super::chart::draw_header`]).
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::{
    draw_header, font, header_height, Drawn, LegendEntry, Swatch, GRID, INK, MUTED, PAD, TEXT_PX,
    TICK_PX, WIDTH,
};
use super::font::{fit, text_width};

/// Height of one row of cells, px.
const ROW_H: u32 = 30;
/// Height of the column labels and the x description, px.
const X_AXIS_H: u32 = 56;

/// One filled cell.
#[derive(Clone, Debug, PartialEq)]
pub struct HeatCell {
    /// Its column, from the left.
    pub column: usize,
    /// Its row, from the bottom.
    pub row: usize,
    /// Its fill.
    pub fill: RGBColor,
    /// Its label (drawn when it fits).
    pub text: String,
}

/// A heat map's content.
#[derive(Clone, Debug, PartialEq)]
pub struct HeatChart {
    /// The x description (the columns' factor).
    pub x_label: String,
    /// The y description (the rows' factor).
    pub y_label: String,
    /// Column labels, left to right.
    pub columns: Vec<String>,
    /// Row labels, bottom to top.
    pub rows: Vec<String>,
    /// The cells measured.
    pub cells: Vec<HeatCell>,
    /// What the colours mean: each fill with its text.
    pub legend: Vec<(String, RGBColor)>,
}

impl HeatChart {
    fn legend(&self) -> Vec<LegendEntry> {
        self.legend
            .iter()
            .map(|(label, fill)| LegendEntry {
                label: label.clone(),
                swatch: Swatch::Fill(*fill),
            })
            .collect()
    }

    /// Total height, px.
    pub(crate) fn height(&self) -> u32 {
        header_height(&self.legend()) + 22 + ROW_H * self.rows.len().max(1) as u32 + X_AXIS_H + PAD
    }

    fn label_width(&self) -> u32 {
        let widest = self
            .rows
            .iter()
            .map(|r| text_width(r, TICK_PX))
            .fold(0.0, f64::max);
        (widest + 12.0).clamp(40.0, 200.0) as u32
    }

    /// The SVG.
    pub(crate) fn render(&self, title: &str) -> Drawn<String> {
        let height = self.height();
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
            root.fill(&WHITE)?;
            let top = draw_header(&root, title, &self.legend())? as i32;
            // The rows' factor, above the row labels.
            root.draw(&Text::new(
                fit(
                    &format!("rows: {}", self.y_label),
                    TEXT_PX,
                    (WIDTH - 2 * PAD) as f64,
                ),
                (PAD as i32, top),
                font(TEXT_PX).pos(Pos::new(HPos::Left, VPos::Top)),
            ))?;
            let grid_top = top + 22;
            let left = (PAD + self.label_width()) as i32;
            let right = (WIDTH - PAD) as i32;
            let n_cols = self.columns.len().max(1) as i32;
            let n_rows = self.rows.len().max(1) as i32;
            let cell_w = ((right - left) / n_cols).max(1);
            let grid_bottom = grid_top + n_rows * ROW_H as i32;
            let at = |column: usize, row: usize| {
                let x = left + column as i32 * cell_w;
                let y = grid_bottom - (row as i32 + 1) * ROW_H as i32;
                (x, y)
            };
            // Blank cells: a light outline.
            for c in 0..self.columns.len() {
                for r in 0..self.rows.len() {
                    let (x, y) = at(c, r);
                    root.draw(&Rectangle::new(
                        [(x, y), (x + cell_w, y + ROW_H as i32)],
                        GRID.stroke_width(1),
                    ))?;
                }
            }
            for cell in &self.cells {
                let (x, y) = at(cell.column, cell.row);
                root.draw(&Rectangle::new(
                    [(x + 1, y + 1), (x + cell_w - 1, y + ROW_H as i32 - 1)],
                    cell.fill.filled(),
                ))?;
                if text_width(&cell.text, TICK_PX) + 4.0 <= cell_w as f64 {
                    let dark =
                        u32::from(cell.fill.0) + u32::from(cell.fill.1) + u32::from(cell.fill.2)
                            < 3 * 128;
                    let ink = if dark { WHITE } else { INK };
                    root.draw(&Text::new(
                        cell.text.clone(),
                        (x + cell_w / 2, y + ROW_H as i32 / 2),
                        font(TICK_PX)
                            .color(&ink)
                            .pos(Pos::new(HPos::Center, VPos::Center)),
                    ))?;
                }
            }
            for (r, label) in self.rows.iter().enumerate() {
                let (_, y) = at(0, r);
                root.draw(&Text::new(
                    label.clone(),
                    (left - 6, y + ROW_H as i32 / 2),
                    font(TICK_PX).pos(Pos::new(HPos::Right, VPos::Center)),
                ))?;
            }
            // Column labels, every k-th so that they do not overlap.
            let widest = self
                .columns
                .iter()
                .map(|c| text_width(c, TICK_PX))
                .fold(0.0, f64::max);
            let every = ((widest + 6.0) / cell_w as f64).ceil().max(1.0) as usize;
            for (c, label) in self.columns.iter().enumerate() {
                if c % every != 0 {
                    continue;
                }
                let (x, _) = at(c, 0);
                root.draw(&Text::new(
                    label.clone(),
                    (x + cell_w / 2, grid_bottom + 6),
                    font(TICK_PX)
                        .color(&MUTED)
                        .pos(Pos::new(HPos::Center, VPos::Top)),
                ))?;
            }
            root.draw(&Text::new(
                fit(
                    &format!("columns: {}", self.x_label),
                    TEXT_PX,
                    (WIDTH - 2 * PAD) as f64,
                ),
                ((left + right) / 2, grid_bottom + 28),
                font(TEXT_PX).pos(Pos::new(HPos::Center, VPos::Top)),
            ))?;
            root.present()?;
        }
        Ok(svg)
    }
}
