//! The driver of a 2-D map (`--over X=… --over Y=…`): measures cell after
//! cell, each a whole session like a 1-D map's point (the engine, cache
//! verification, interference record, precision and verdict rules of
//! `run`), and asks the pure search ([`crate::stats::crossover2d`]) where to
//! measure next: a coarse grid, then only cells along the boundary, until
//! every bracket is as tight as asked, the time budget is spent, or a signal
//! stops it. The exports are rewritten after every cell.
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::factors::MapFactor;
use super::MapSpec;
use crate::analysis::map2_results::{self, Cell, Map2Results, PlaneFactor};
use crate::analysis::map_results::{self, MapPoint, Stopped};
use crate::error::Result;
use crate::stats::crossover::Axis;
use crate::stats::crossover2d::{self, Grid};

/// A map over two factors: the 1-D spec (its factor is X, the columns;
/// its exports are the plane's) and the second factor, Y (the rows).
pub struct PlaneSpec {
    /// X, the fixed flags, the engine's configuration, budget and exports.
    pub map: MapSpec,
    /// The rows' factor.
    pub y: &'static MapFactor,
    /// Its range, scale and resolution.
    pub y_axis: Axis,
}

impl PlaneSpec {
    /// Checks the four corners make plans and the outputs are safe, before
    /// anything runs.
    pub fn check(&self) -> Result<()> {
        self.map.check()?;
        for x in [self.map.axis.low, self.map.axis.high] {
            for y in [self.y_axis.low, self.y_axis.high] {
                self.map.plan_for(&[(self.map.factor, x), (self.y, y)])?;
            }
        }
        Ok(())
    }

    /// The plane.
    pub fn grid(&self) -> Grid {
        Grid {
            x: self.map.axis,
            y: self.y_axis,
        }
    }

    fn snap_y(&self, y: f64) -> f64 {
        (self.y.snap)(y, &self.map.factors)
    }

    fn factor(f: &MapFactor) -> PlaneFactor {
        PlaneFactor {
            name: f.name.to_string(),
            unit: f.unit.name().to_string(),
            noun: f.noun.to_string(),
        }
    }

    /// The results so far.
    fn results(&self, cells: &[Cell], stopped: Stopped, started: Instant) -> Map2Results {
        let factors = [Self::factor(self.map.factor), Self::factor(self.y)];
        let grid = self.grid();
        let methods = match cells.first() {
            Some(c) => [c.point.baseline.label.clone(), c.point.other.label.clone()],
            None => [
                self.map.factors.methods[0].to_string(),
                self.map.factors.methods[1].to_string(),
            ],
        };
        Map2Results {
            faultline_map: map_results::FORMAT,
            dimensions: 2,
            boundary: map2_results::boundary(&factors, &grid, cells),
            factors,
            methods,
            fixed: self.map.fixed.clone(),
            grid,
            margin: self.map.margin,
            cells: cells.to_vec(),
            trials: cells.iter().map(|c| c.point.trials).sum(),
            distinct_cells: crossover2d::cells(&map2_results::observations(cells)).len(),
            grid_points: grid.grid_points(),
            stopped,
            elapsed_s: started.elapsed().as_secs_f64(),
            budget_s: self.map.budget_s,
            environment: None,
            command_line: std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            warnings: Vec::new(),
        }
    }

    fn write(&self, results: &Map2Results) -> Result<()> {
        if let Some(p) = &self.map.export_json {
            crate::report::map::plane::write_json(results, p)?;
        }
        if let Some(p) = &self.map.report {
            crate::report::map::plane::write_html(results, p)?;
        }
        Ok(())
    }

    /// Runs the search; a signal stops it after the cell it interrupted.
    pub fn run(&self) -> Result<Map2Results> {
        let started = Instant::now();
        let stop = std::sync::Arc::clone(crate::system::stop_flag());
        let grid = self.grid();
        let snap_x = |x: f64| self.map.snap(x);
        let snap_y = |y: f64| self.snap_y(y);
        let mut cells: Vec<Cell> = Vec::new();
        let mut environment = None;
        let mut warnings: Vec<String> = Vec::new();
        let mut todo = grid.coarse(&snap_x, &snap_y);
        let mut round = 0;
        let stopped = 'search: loop {
            if todo.is_empty() {
                break Stopped::Converged;
            }
            for (i, &(x, y)) in todo.iter().enumerate() {
                let elapsed = started.elapsed().as_secs_f64();
                let per_cell = if cells.is_empty() {
                    0.0
                } else {
                    elapsed / cells.len() as f64
                };
                if elapsed + per_cell > self.map.budget_s {
                    break 'search Stopped::Budget;
                }
                if stop.load(Ordering::SeqCst) {
                    break 'search Stopped::Interrupted;
                }
                let left = (self.map.budget_s - elapsed).max(0.001);
                let share = left / (todo.len() - i) as f64;
                let plan = self.map.plan_for(&[(self.map.factor, x), (self.y, y)])?;
                let cell_started = Instant::now();
                let finished = self.map.measure(plan, share)?;
                environment.get_or_insert_with(|| finished.results.environment.clone());
                for w in &finished.results.warnings {
                    if !warnings.contains(w) {
                        warnings.push(w.clone());
                    }
                }
                let point = MapPoint::from_run(
                    x,
                    self.map.factor.unit.label(x),
                    round,
                    &finished.results,
                    self.map.margin,
                    cell_started.elapsed().as_secs_f64(),
                );
                if let Some(point) = point {
                    let cell = Cell {
                        y,
                        y_label: self.y.unit.label(y),
                        point,
                    };
                    if !self.map.quiet {
                        eprintln!(
                            "{}",
                            crate::report::map::plane::cell_line(&cell, self.names())
                        );
                    }
                    cells.push(cell);
                }
                let mut so_far = self.results(&cells, Stopped::Interrupted, started);
                so_far.environment = environment.clone();
                so_far.warnings = warnings.clone();
                self.write(&so_far)?;
                if finished.interrupted {
                    break 'search Stopped::Interrupted;
                }
            }
            round += 1;
            todo = crossover2d::next_points(
                &grid,
                &map2_results::observations(&cells),
                &snap_x,
                &snap_y,
            );
        };
        let mut results = self.results(&cells, stopped, started);
        results.environment = environment;
        results.warnings = warnings;
        self.write(&results)?;
        Ok(results)
    }

    /// The factors' names, X then Y.
    pub fn names(&self) -> [&'static str; 2] {
        [self.map.factor.name, self.y.name]
    }
}
