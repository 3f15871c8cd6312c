//! The output of a 2-D `faultline map`: the answer in words (the boundary
//! row by row and column by column, each line as a 1-D map says it), every
//! bracket of the boundary, the grid as a table (winner and ratio per
//! cell), what the search cost against a full grid, the JSON export and the
//! HTML page with the heat map of winner and ratio. Rendering only: every
//! number comes from [`Map2Results`].
use std::io;
use std::path::Path;

use plotters::style::RGBColor;

use crate::analysis::map2_results::{self, Boundary, Cell, Map2Results};
use crate::error::Result;
use crate::files::atomic::{write_atomically, SHARED_MODE};
use crate::report::export::html::{escape, page_end, page_start, push_plot, push_text_table};
use crate::report::map::{self as one, side_words, stopped_words};
use crate::report::plot::{heat_plot, HeatCell, HeatChart, Plot};
use crate::report::text_table::Table;
use crate::report::units::sig3;
use crate::stats::crossover::{Scale, Side};
use crate::stats::crossover2d::{self, Along};

/// The line printed as each cell is measured.
pub fn cell_line(c: &Cell, names: [&str; 2]) -> String {
    let line = one::point_line(&c.point, names[0]);
    // `map: block 4 KiB: …` → `map: block 4 KiB, size 16 MiB: …`
    match line.split_once(": ") {
        Some((head, rest)) => match rest.split_once(": ") {
            Some((value, tail)) => {
                format!("{head}: {value}, {} {}: {tail}", names[1], c.y_label)
            }
            None => line,
        },
        None => line,
    }
}

/// The lines along `along` with two or more values, each as a 1-D map
/// says it: `at size 16 MiB: mmap faster for blocks up to …`.
fn lines_along(r: &Map2Results, along: Along) -> Vec<String> {
    let fixed = match along {
        Along::X => &r.factors[1].name,
        Along::Y => &r.factors[0].name,
    };
    r.line_values(along)
        .into_iter()
        .filter_map(|at| {
            let line = r.line(along, at);
            (line.distinct_points >= 2).then(|| {
                format!(
                    "at {fixed} {}: {}",
                    r.fixed_label(along, at),
                    one::words(&line)
                )
            })
        })
        .collect()
}

/// The answer, one sentence for the plane, then one line per row (along
/// X) and per column of two or more cells (along Y).
pub fn words(r: &Map2Results) -> Vec<String> {
    let cells = crossover2d::cells(&map2_results::observations(&r.cells));
    let mut sides: Vec<Side> = cells.iter().map(|c| c.2).filter(|s| s.settled()).collect();
    sides.sort_by_key(|s| *s as u8);
    sides.dedup();
    let unsettled = cells.iter().filter(|c| !c.2.settled()).count();
    let note = if unsettled > 0 {
        format!(" ({unsettled} cell(s) unsettled)")
    } else {
        String::new()
    };
    let plane = format!("{} × {}", range(r, 0), range(r, 1));
    let head = match (sides.as_slice(), r.boundary.len()) {
        _ if r.cells.is_empty() => "nothing measured".to_string(),
        ([], _) => format!(
            "no verdict on {plane}: every cell unsettled (more runs, --precision, or a quieter \
             machine would settle them)"
        ),
        ([one], _) => format!(
            "no crossover on {plane}: {} in every settled cell{note}",
            side_words(*one, &r.methods)
        ),
        (_, 0) => format!(
            "the verdict differs between cells of {plane} but no two neighbours with different \
             verdicts are settled{note}"
        ),
        (_, n) => {
            let along_x = r
                .boundary
                .iter()
                .filter(|b| b.crossover.factor == r.factors[0].name)
                .count();
            format!(
                "the winner changes on {plane}: {n} bracket(s), {along_x} along {} and {} along \
                 {}{note}",
                r.factors[0].name,
                n - along_x,
                r.factors[1].name
            )
        }
    };
    let mut out = vec![head];
    out.extend(lines_along(r, Along::X));
    out.extend(lines_along(r, Along::Y));
    out
}

/// `block 4 KiB–1 MiB`: a factor's range as measured.
fn range(r: &Map2Results, i: usize) -> String {
    let axis = if i == 0 { &r.grid.x } else { &r.grid.y };
    let label = |v: f64| {
        r.cells
            .iter()
            .find_map(|c| {
                if i == 0 && c.point.value == v {
                    Some(c.point.label.clone())
                } else if i == 1 && c.y == v {
                    Some(c.y_label.clone())
                } else {
                    None
                }
            })
            .unwrap_or_else(|| format!("{v}"))
    };
    format!(
        "{} {}",
        r.factors[i].name,
        one::span(&label(axis.low), &label(axis.high))
    )
}

/// One line per bracket of the boundary.
pub fn boundary_lines(r: &Map2Results) -> Vec<String> {
    r.boundary.iter().map(|b| boundary_line(b, r)).collect()
}

fn boundary_line(b: &Boundary, r: &Map2Results) -> String {
    let c = &b.crossover;
    let axis = if c.factor == r.factors[0].name {
        &r.grid.x
    } else {
        &r.grid.y
    };
    let (width, asked) = match axis.scale {
        Scale::Log => (
            format!("{:.2}x wide", c.high / c.low),
            format!("{}x", axis.resolution),
        ),
        Scale::Linear => (
            format!("{} wide", (c.high - c.low) * 1000.0 / 1000.0),
            format!("{}", axis.resolution),
        ),
    };
    let tight = if c.tight {
        format!("within {asked}")
    } else if c.unsettled_between > 0 {
        format!(
            "wider than {asked}: {} cell(s) between are unsettled",
            c.unsettled_between
        )
    } else {
        format!("wider than {asked}: {}", stopped_words(r.stopped))
    };
    format!(
        "at {} {}: {} {} ({}) → {} ({}): {width}, {tight}",
        b.at_factor,
        b.at_label,
        c.factor,
        c.low_label,
        side_words(c.below, &r.methods),
        c.high_label,
        side_words(c.above, &r.methods),
    )
}

/// The last measurement of each cell, with the cell's side (the side every
/// measurement gave, else unsettled): `(x, y, side, last measurement)`.
fn latest(r: &Map2Results) -> Vec<(f64, f64, Side, &Cell)> {
    crossover2d::cells(&map2_results::observations(&r.cells))
        .into_iter()
        .filter_map(|(x, y, side, _)| {
            r.cells
                .iter()
                .rev()
                .find(|c| c.point.value == x && c.y == y)
                .map(|c| (x, y, side, c))
        })
        .collect()
}

/// A cell as the table shows it: the winner (`A` or `B`, `=` for no
/// difference, `?` unsettled) and B / A.
fn cell_text(side: Side, c: &Cell) -> String {
    let who = match side {
        Side::AFaster => "A",
        Side::BFaster => "B",
        Side::NoDifference => "=",
        Side::Unsettled => "?",
    };
    match &c.point.ratio {
        Some(e) => format!("{who} {}x", sig3(e.ratio)),
        None => who.to_string(),
    }
}

/// Distinct values of a factor with their labels, in order.
type Values = Vec<(f64, String)>;

/// The sorted distinct X values and Y values measured.
fn axes(r: &Map2Results) -> (Values, Values) {
    let mut xs: Values = r
        .cells
        .iter()
        .map(|c| (c.point.value, c.point.label.clone()))
        .collect();
    xs.sort_by(|a, b| a.0.total_cmp(&b.0));
    xs.dedup_by(|a, b| a.0 == b.0);
    let mut ys: Values = r.cells.iter().map(|c| (c.y, c.y_label.clone())).collect();
    ys.sort_by(|a, b| a.0.total_cmp(&b.0));
    ys.dedup_by(|a, b| a.0 == b.0);
    (xs, ys)
}

/// The grid as a table: a row per Y value, a column per X value measured,
/// each cell the winner and B / A (blank: not measured).
pub fn grid_table(r: &Map2Results) -> Table {
    let (xs, ys) = axes(r);
    let cells = latest(r);
    let rows = ys
        .iter()
        .map(|(y, y_label)| {
            let mut row = vec![y_label.clone()];
            for (x, _) in &xs {
                row.push(
                    cells
                        .iter()
                        .find(|c| c.0 == *x && c.1 == *y)
                        .map_or_else(String::new, |c| cell_text(c.2, c.3)),
                );
            }
            row
        })
        .collect();
    let corner = format!("{} \\ {}", r.factors[1].name, r.factors[0].name);
    let mut columns: Vec<&str> = vec![corner.as_str()];
    columns.extend(xs.iter().map(|(_, l)| l.as_str()));
    Table::new(
        &format!(
            "{} against {}, {}: per cell the winner (A {}, B {}, '=' no difference, '?' \
             unsettled, blank not measured) and B / A throughput",
            r.methods[1], r.methods[0], r.fixed, r.methods[0], r.methods[1]
        ),
        &columns,
        rows,
    )
}

/// What the search cost against a full grid at both resolutions: cells
/// counted; the grid's trials estimated from this map's mean trials per
/// measurement, and said to be an estimate.
pub fn cost_line(r: &Map2Results) -> String {
    let measurements = r.cells.len();
    let mean = if measurements > 0 {
        r.trials as f64 / measurements as f64
    } else {
        0.0
    };
    let res = |a: &crate::stats::crossover::Axis| match a.scale {
        Scale::Log => format!("{}x", a.resolution),
        Scale::Linear => format!("steps of {}", a.resolution),
    };
    let share = if r.grid_points > 0 {
        100.0 * r.distinct_cells as f64 / r.grid_points as f64
    } else {
        0.0
    };
    format!(
        "search: {} cell(s) ({measurements} measurement(s), {} trials) in {:.0} s, {}; a full grid \
         at {} in {} by {} in {} would be {} cells (about {:.0} trials at this map's {:.1} per \
         measurement): {share:.0}% of its cells",
        r.distinct_cells,
        r.trials,
        r.elapsed_s,
        stopped_words(r.stopped),
        res(&r.grid.x),
        r.factors[0].name,
        res(&r.grid.y),
        r.factors[1].name,
        r.grid_points,
        mean * r.grid_points as f64,
        mean
    )
}

/// Everything the terminal shows after a 2-D map.
pub fn render_text(r: &Map2Results) -> String {
    let mut out = format!(
        "{} against {} over {} and {} ({}):\n",
        r.methods[1], r.methods[0], r.factors[0].name, r.factors[1].name, r.fixed
    );
    for line in words(r) {
        out.push_str(&line);
        out.push('\n');
    }
    for line in boundary_lines(r) {
        out.push_str(&format!("  {line}\n"));
    }
    out.push('\n');
    out.push_str(&grid_table(r).render_text());
    out.push('\n');
    out.push_str(&cost_line(r));
    out.push('\n');
    out
}

/// Writes the JSON export atomically.
pub fn write_json(r: &Map2Results, path: &Path) -> Result<()> {
    write_atomically(path, SHARED_MODE, |w| {
        serde_json::to_writer_pretty(&mut *w, r).map_err(io::Error::from)?;
        w.write_all(b"\n")
    })
}

/// B faster: blue; A faster: vermilion; no difference: grey (the
/// Okabe–Ito colours of the other plots).
const B_HUE: RGBColor = RGBColor(0, 114, 178);
const A_HUE: RGBColor = RGBColor(213, 94, 0);
const SAME: RGBColor = RGBColor(190, 190, 190);
const UNSETTLED: RGBColor = RGBColor(245, 245, 245);

/// `hue` mixed with white: the stronger the ratio (up to 4x either way),
/// the fuller the colour.
fn shade(hue: RGBColor, ratio: f64) -> RGBColor {
    let strength = (ratio.ln().abs() / 4f64.ln()).clamp(0.0, 1.0);
    let keep = 0.3 + 0.7 * strength;
    let mix = |v: u8| (255.0 - (255.0 - f64::from(v)) * keep).round() as u8;
    RGBColor(mix(hue.0), mix(hue.1), mix(hue.2))
}

/// The heat map: a cell per value pair measured, coloured by the winner,
/// the colour the fuller the larger the ratio, labelled with B / A.
pub fn heat_map(r: &Map2Results) -> Plot {
    let (xs, ys) = axes(r);
    let cells = latest(r)
        .into_iter()
        .filter_map(|(x, y, side, c)| {
            let column = xs.iter().position(|v| v.0 == x)?;
            let row = ys.iter().position(|v| v.0 == y)?;
            let ratio = c.point.ratio.as_ref().map(|e| e.ratio);
            let fill = match (side, ratio) {
                (Side::BFaster, Some(q)) => shade(B_HUE, q),
                (Side::AFaster, Some(q)) => shade(A_HUE, q),
                (Side::NoDifference, _) => SAME,
                _ => UNSETTLED,
            };
            let text = match (side, ratio) {
                (Side::Unsettled, Some(q)) => format!("?{}", sig3(q)),
                (_, Some(q)) => sig3(q),
                (_, None) => "?".to_string(),
            };
            Some(HeatCell {
                column,
                row,
                fill,
                text,
            })
        })
        .collect();
    let unit = |i: usize| {
        if r.factors[i].unit == "bytes" {
            format!("{}, bytes", r.factors[i].name)
        } else {
            r.factors[i].name.clone()
        }
    };
    let chart = HeatChart {
        x_label: unit(0),
        y_label: unit(1),
        columns: xs.into_iter().map(|x| x.1).collect(),
        rows: ys.into_iter().map(|y| y.1).collect(),
        cells,
        legend: vec![
            (format!("{} faster", r.methods[1]), B_HUE),
            (format!("{} faster", r.methods[0]), A_HUE),
            ("no difference".to_string(), SAME),
            ("unsettled".to_string(), UNSETTLED),
        ],
    };
    heat_plot(
        "map-heat",
        &format!(
            "{} / {} over {} and {}",
            r.methods[1], r.methods[0], r.factors[0].name, r.factors[1].name
        ),
        &format!(
            "One cell per pair of values measured, coloured by the verdict there, the colour the \
             fuller the larger the ratio (full at 4x); the label is the throughput ratio {} / {} \
             ('?' before it: unsettled). Blank cells were not measured: the search refines only \
             along the boundary.",
            r.methods[1], r.methods[0]
        ),
        &chart,
    )
}

/// The HTML page of a 2-D map.
pub fn render_html(r: &Map2Results) -> String {
    let title = format!(
        "{} against {} over {} and {}",
        r.methods[1], r.methods[0], r.factors[0].name, r.factors[1].name
    );
    let said = words(r);
    let mut out = page_start(&title, &said[0], &[], "");
    out.push_str("<section><h2>Answer</h2>\n");
    for line in &said {
        out.push_str(&format!("<p>{}</p>\n", escape(line)));
    }
    out.push_str("<ul>\n");
    for line in boundary_lines(r) {
        out.push_str(&format!("<li>{}</li>\n", escape(&line)));
    }
    out.push_str("</ul>\n");
    out.push_str(&format!("<p>{}</p></section>\n", escape(&cost_line(r))));
    out.push_str("<section><h2>Heat map</h2>\n");
    push_plot(&mut out, &heat_map(r));
    out.push_str("</section>\n<section><h2>Cells</h2>\n");
    push_text_table(&mut out, &grid_table(r));
    out.push_str("</section>\n");
    one::push_warnings(&mut out, &r.warnings);
    page_end(&mut out);
    out
}

/// Writes the HTML page atomically.
pub fn write_html(r: &Map2Results, path: &Path) -> Result<()> {
    let page = render_html(r);
    write_atomically(path, SHARED_MODE, |w| w.write_all(page.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::map2_results::PlaneFactor;
    use crate::analysis::map_results::{MapPoint, Stopped};
    use crate::stats::crossover::Axis;
    use crate::stats::crossover2d::Grid;

    const K: f64 = 1024.0;
    const M: f64 = 1024.0 * K;

    /// Cells at `(block, size, side)` from the fixture run (mmap 1.42x read).
    fn results(sides: &[(f64, f64, Side)]) -> Map2Results {
        let run = crate::fixtures::results();
        let label = |v: f64| crate::size::format_size(v as u64);
        let cells: Vec<Cell> = sides
            .iter()
            .map(|&(x, y, side)| {
                let mut p = MapPoint::from_run(x, label(x), 0, &run, 0.05, 1.0).unwrap();
                p.side = side;
                Cell {
                    y,
                    y_label: label(y),
                    point: p,
                }
            })
            .collect();
        let axis = |low, high| Axis {
            low,
            high,
            scale: Scale::Log,
            resolution: 1.25,
        };
        let grid = Grid {
            x: axis(4.0 * K, M),
            y: axis(M, 64.0 * M),
        };
        let factors = [
            PlaneFactor {
                name: "block".into(),
                unit: "bytes".into(),
                noun: "blocks".into(),
            },
            PlaneFactor {
                name: "size".into(),
                unit: "bytes".into(),
                noun: "files".into(),
            },
        ];
        Map2Results {
            faultline_map: 1,
            dimensions: 2,
            boundary: map2_results::boundary(&factors, &grid, &cells),
            factors,
            methods: ["read".into(), "mmap".into()],
            fixed: "random sum, warm".into(),
            grid,
            margin: 0.05,
            trials: cells.iter().map(|c| c.point.trials).sum(),
            distinct_cells: crossover2d::cells(&map2_results::observations(&cells)).len(),
            cells,
            grid_points: grid.grid_points(),
            stopped: Stopped::Converged,
            elapsed_s: 10.0,
            budget_s: 60.0,
            environment: None,
            command_line: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// mmap faster for small blocks, read for large, the edge moving with
    /// the file size; one column refined.
    fn two_by_two() -> Map2Results {
        results(&[
            (4.0 * K, M, Side::BFaster),
            (64.0 * K, M, Side::BFaster),
            (M, M, Side::AFaster),
            (4.0 * K, 64.0 * M, Side::BFaster),
            (64.0 * K, 64.0 * M, Side::AFaster),
            (M, 64.0 * M, Side::AFaster),
            (256.0 * K, M, Side::Unsettled),
        ])
    }

    #[test]
    fn the_words_give_the_boundary_row_by_row_and_column_by_column() {
        let r = two_by_two();
        let said = words(&r);
        assert!(
            said[0].starts_with("the winner changes on block 4 KiB–1 MiB × size 1–64 MiB: 3 bracket(s), 2 along block and 1 along size (1 cell(s) unsettled)"),
            "{said:?}"
        );
        assert!(
            said.contains(&"at size 1 MiB: mmap faster for blocks up to 64 KiB–1 MiB; read faster from there up to 1 MiB (1 point(s) unsettled)".to_string()),
            "{said:?}"
        );
        assert!(
            said.contains(&"at size 64 MiB: mmap faster for blocks up to 4–64 KiB; read faster from there up to 1 MiB".to_string()),
            "{said:?}"
        );
        // The 64 KiB column: mmap at 1 MiB files, read at 64 MiB.
        assert!(
            said.contains(&"at block 64 KiB: mmap faster for files up to 1–64 MiB; read faster from there up to 64 MiB".to_string()),
            "{said:?}"
        );
        let lines = boundary_lines(&r);
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines[0].starts_with("at size 1 MiB: block 64 KiB (mmap faster) → 1 MiB (read faster): 16.00x wide, wider than 1.25x"),
            "{lines:?}"
        );
    }

    #[test]
    fn the_table_has_a_cell_per_pair_and_blanks_where_nothing_was_measured() {
        let r = two_by_two();
        let t = grid_table(&r);
        assert_eq!(
            t.columns,
            ["size \\ block", "4 KiB", "64 KiB", "256 KiB", "1 MiB"]
        );
        assert_eq!(t.rows.len(), 2);
        assert_eq!(
            t.rows[0],
            ["1 MiB", "B 1.42x", "B 1.42x", "? 1.42x", "A 1.42x"]
        );
        assert_eq!(t.rows[1][3], "", "256 KiB at 64 MiB was not measured");
        let cost = cost_line(&r);
        assert!(
            cost.contains("7 cell(s) (7 measurement(s), 42 trials)"),
            "{cost}"
        );
        // 26 blocks by 20 sizes at 1.25x.
        assert!(
            cost.contains("would be 520 cells (about 3120 trials"),
            "{cost}"
        );
    }

    #[test]
    fn the_page_draws_a_heat_map_of_winner_and_ratio() {
        let r = two_by_two();
        let page = render_html(&r);
        assert!(page.contains("id=\"plot-map-heat\""), "no heat map");
        assert!(page.contains("mmap faster") && page.contains("read faster"));
        // A cell per pair measured, labelled with its ratio.
        let plot = heat_map(&r);
        assert_eq!(
            plot.svg.matches(">\n1.42\n<").count(),
            6,
            "six settled cells"
        );
        assert_eq!(plot.svg.matches(">\n?1.42\n<").count(), 1, "one unsettled");
        // The fills: mmap's hue and read's, never the same.
        assert_ne!(shade(B_HUE, 1.42), shade(A_HUE, 1.42));
        assert!(
            shade(B_HUE, 4.0).2 < shade(B_HUE, 1.1).2 || shade(B_HUE, 4.0).0 < shade(B_HUE, 1.1).0
        );
    }

    #[test]
    fn a_column_the_refinement_made_is_said_over_its_own_range() {
        // The 256 KiB column holds cells at 8 and 64 MiB only.
        let r = results(&[
            (4.0 * K, M, Side::BFaster),
            (M, M, Side::BFaster),
            (256.0 * K, 8.0 * M, Side::AFaster),
            (256.0 * K, 64.0 * M, Side::AFaster),
        ]);
        let said = words(&r);
        assert!(
            said.contains(
                &"at block 256 KiB: no crossover between 8 MiB and 64 MiB: read faster throughout"
                    .to_string()
            ),
            "{said:?}"
        );
    }

    #[test]
    fn nothing_changes_is_said_so() {
        let r = results(&[
            (4.0 * K, M, Side::BFaster),
            (M, M, Side::BFaster),
            (4.0 * K, 64.0 * M, Side::BFaster),
            (M, 64.0 * M, Side::BFaster),
        ]);
        assert_eq!(
            words(&r)[0],
            "no crossover on block 4 KiB–1 MiB × size 1–64 MiB: mmap faster in every settled cell"
        );
        assert!(r.boundary.is_empty());
    }
}
