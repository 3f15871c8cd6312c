//! The results of a 2-D `faultline map` (two `--over`): every cell measured
//! (its comparison, verdict, side and both cases with their samples), the
//! boundary the cells show (each row's and each column's brackets), and
//! what the search cost against a full grid of the same resolution.
//!
//! Assembled from the points' runs and the pure search
//! ([`crate::stats::crossover2d`]); nothing here measures. A row or a column is
//! also a 1-D map ([`Map2Results::line`]), so its words and brackets are
//! the 1-D map's.
use serde::{Deserialize, Serialize};

use super::map_results::{self, Crossover, MapPoint, MapResults, Stopped};
use crate::measure::environment::Environment;
use crate::stats::crossover::Axis;
use crate::stats::crossover2d::{self, Along, Grid, Observation2};

/// One factor of the plane.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlaneFactor {
    /// Its name, e.g. `block`.
    pub name: String,
    /// Its unit, e.g. `bytes`.
    pub unit: String,
    /// What its values are called in a sentence, e.g. `blocks`.
    pub noun: String,
}

/// Everything a 2-D map produced.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Map2Results {
    /// Export format version ([`map_results::FORMAT`]).
    pub faultline_map: u32,
    /// Always 2.
    pub dimensions: u32,
    /// The columns' factor (X) and the rows' (Y).
    pub factors: [PlaneFactor; 2],
    /// The first method (A, the baseline) and the second (B), with options.
    pub methods: [String; 2],
    /// What every cell shares.
    pub fixed: String,
    /// Both ranges, their scales and resolutions.
    pub grid: Grid,
    /// The no-effect band's half-width.
    pub margin: f64,
    /// The boundary: each row's brackets (along X) and each column's
    /// (along Y), in order.
    pub boundary: Vec<Boundary>,
    /// Every measurement, in the order it was made.
    pub cells: Vec<Cell>,
    /// Measured trials over all cells.
    pub trials: usize,
    /// Distinct cells measured.
    pub distinct_cells: usize,
    /// How many cells a full grid at both resolutions would take.
    pub grid_points: usize,
    /// Why the search stopped.
    pub stopped: Stopped,
    /// Seconds the search took.
    pub elapsed_s: f64,
    /// The time budget, seconds.
    pub budget_s: f64,
    /// The machine, from the first cell.
    pub environment: Option<Environment>,
    /// The command line as given.
    pub command_line: Vec<String>,
    /// Warnings the cells raised, each once.
    pub warnings: Vec<String>,
}

/// One measurement of one cell: the point at X (`point.value`), with Y.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cell {
    /// The rows' factor's value.
    pub y: f64,
    /// It as a person reads it.
    pub y_label: String,
    /// The measurement, at X = `point.value`.
    #[serde(flatten)]
    pub point: MapPoint,
}

/// One bracket of the boundary: on the line where the other factor is
/// `at`, the verdict changes between `low` and `high` of `factor`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Boundary {
    /// The factor held fixed on this line.
    pub at_factor: String,
    /// Its value.
    pub at: f64,
    /// It as a person reads it.
    pub at_label: String,
    /// The bracket along the line (its `factor` is the one crossed).
    #[serde(flatten)]
    pub crossover: Crossover,
}

impl Cell {
    /// The search's view of the cell.
    pub fn observation(&self) -> Observation2 {
        Observation2 {
            x: self.point.value,
            y: self.y,
            side: self.point.side,
        }
    }
}

/// The observations of `cells`.
pub fn observations(cells: &[Cell]) -> Vec<Observation2> {
    cells.iter().map(Cell::observation).collect()
}

impl Map2Results {
    /// The fixed values of the lines along `along`, in order: the rows'
    /// Y values (along X) or the columns' X values (along Y).
    pub fn line_values(&self, along: Along) -> Vec<f64> {
        crossover2d::lines(&observations(&self.cells), along)
            .into_iter()
            .map(|(at, _)| at)
            .collect()
    }

    /// The label of the value `at` a line along `along` holds fixed: a
    /// Y value for a row, an X value for a column.
    pub fn fixed_label(&self, along: Along, at: f64) -> String {
        self.cells
            .iter()
            .find_map(|c| match along {
                Along::X if c.y == at => Some(c.y_label.clone()),
                Along::Y if c.point.value == at => Some(c.point.label.clone()),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The row (along X, Y = `at`) or column (along Y, X = `at`) as a 1-D
    /// map: its points (for a column, each with Y as its value) and its
    /// brackets.
    pub fn line(&self, along: Along, at: f64) -> MapResults {
        let (factor, other) = match along {
            Along::X => (&self.factors[0], &self.factors[1]),
            Along::Y => (&self.factors[1], &self.factors[0]),
        };
        let points: Vec<MapPoint> = self
            .cells
            .iter()
            .filter_map(|c| match along {
                Along::X if c.y == at => Some(c.point.clone()),
                Along::Y if c.point.value == at => {
                    let mut p = c.point.clone();
                    p.value = c.y;
                    p.label = c.y_label.clone();
                    Some(p)
                }
                _ => None,
            })
            .collect();
        // The line's own range: a column a row's refinement made starts
        // and ends at its own cells, not at the plane's corners.
        let mut axis: Axis = *self.grid.axis(along);
        if let (Some(lo), Some(hi)) = (
            points.iter().map(|p| p.value).min_by(f64::total_cmp),
            points.iter().map(|p| p.value).max_by(f64::total_cmp),
        ) {
            axis.low = lo;
            axis.high = hi;
        }
        let labels: Vec<(f64, String)> =
            points.iter().map(|p| (p.value, p.label.clone())).collect();
        let label = |x: f64| {
            labels
                .iter()
                .find(|(v, _)| *v == x)
                .map_or_else(String::new, |(_, l)| l.clone())
        };
        let mut distinct: Vec<f64> = points.iter().map(|p| p.value).collect();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        MapResults {
            faultline_map: self.faultline_map,
            factor: factor.name.clone(),
            unit: factor.unit.clone(),
            noun: factor.noun.clone(),
            methods: self.methods.clone(),
            fixed: format!(
                "{} {}, {}",
                other.name,
                self.fixed_label(along, at),
                self.fixed
            ),
            axis,
            margin: self.margin,
            crossovers: map_results::crossovers(&factor.name, &axis, &points, &label),
            trials: points.iter().map(|p| p.trials).sum(),
            distinct_points: distinct.len(),
            points,
            grid_points: axis.grid_points(),
            grid_trials: Default::default(),
            stopped: self.stopped,
            elapsed_s: 0.0,
            budget_s: self.budget_s,
            environment: None,
            command_line: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// The boundary `cells` show on `grid`: every row's brackets, then every
/// column's, each labelled.
pub fn boundary(factors: &[PlaneFactor; 2], grid: &Grid, cells: &[Cell]) -> Vec<Boundary> {
    let obs = observations(cells);
    let label_x = |x: f64| {
        cells
            .iter()
            .find(|c| c.point.value == x)
            .map_or_else(String::new, |c| c.point.label.clone())
    };
    let label_y = |y: f64| {
        cells
            .iter()
            .find(|c| c.y == y)
            .map_or_else(String::new, |c| c.y_label.clone())
    };
    crossover2d::boundaries(grid, &obs)
        .into_iter()
        .map(|b| {
            let (crossed, fixed, at_label) = match b.along {
                Along::X => (&factors[0], &factors[1], label_y(b.at)),
                Along::Y => (&factors[1], &factors[0], label_x(b.at)),
            };
            let label_along = |v: f64| match b.along {
                Along::X => label_x(v),
                Along::Y => label_y(v),
            };
            Boundary {
                at_factor: fixed.name.clone(),
                at: b.at,
                at_label,
                crossover: Crossover {
                    factor: crossed.name.clone(),
                    low: b.bracket.low,
                    high: b.bracket.high,
                    low_label: label_along(b.bracket.low),
                    high_label: label_along(b.bracket.high),
                    below: b.bracket.below,
                    above: b.bracket.above,
                    unsettled_between: b.bracket.unsettled_between,
                    tight: b.bracket.tight,
                },
            }
        })
        .collect()
}
