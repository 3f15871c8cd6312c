//! `faultline map`'s driver: measures point after point along one factor,
//! each point a whole [`Session`] of its own (the same engine, cache
//! verification, interference record, precision rules and verdicts as
//! `run`), and asks the pure search ([`crate::stats::crossover`]) where to
//! measure next, until every bracket is as tight as asked, the time budget
//! is spent, or a signal stops it. The exports are rewritten after every
//! point, so an interrupted map keeps what it measured.
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::{RunSpec, Session};
use crate::analysis::map_results::{self, GridTrials, MapPoint, MapResults, Stopped};
use crate::error::{Error, Result};
use crate::files::outputs::Files;
use crate::plan::factors::Factors;
use crate::plan::Plan;
use crate::stats::crossover::{self, Axis};

pub mod factors;
pub mod plane;

use factors::MapFactor;

/// One map to run.
pub struct MapSpec {
    /// The factor swept.
    pub factor: &'static MapFactor,
    /// Its range, scale and resolution.
    pub axis: Axis,
    /// Everything else: the two methods, the pattern, the cache state...
    pub factors: Factors,
    /// The file size (when the factor is not the size).
    pub size: u64,
    /// Where and how each point's session runs (its exports are none: the
    /// map writes its own).
    pub config: RunSpec,
    /// Seconds the whole search may take.
    pub budget_s: f64,
    /// The no-effect band's half-width.
    pub margin: f64,
    /// What every point shares, in words.
    pub fixed: String,
    /// `--export-json`.
    pub export_json: Option<PathBuf>,
    /// `--report`: the HTML page.
    pub report: Option<PathBuf>,
    /// `--quiet`: no line per point.
    pub quiet: bool,
}

/// What a map produced.
pub struct MapOutcome {
    /// The points, crossovers and cost.
    pub results: MapResults,
}

impl MapSpec {
    /// The plan of the point at `value`.
    pub fn plan_at(&self, value: f64) -> Result<Plan> {
        self.plan_for(&[(self.factor, value)])
    }

    /// The plan of the point where each factor given takes its value.
    pub fn plan_for(&self, values: &[(&MapFactor, f64)]) -> Result<Plan> {
        let mut factors = self.factors.clone();
        let mut size = self.size;
        for &(factor, value) in values {
            (factor.apply)(&mut factors, &mut size, value).map_err(|why| {
                Error::Plan(format!(
                    "--over {}={}: {why}",
                    factor.name,
                    factor.unit.label(value)
                ))
            })?;
        }
        let sizes = super::planned_file_sizes(&self.config, &[size])?;
        let mut plan = factors.plan(&sizes)?;
        if let Some(ns) = self.config.statistics_or_default().min_trial_ns {
            for case in plan.cases.iter_mut().filter(|c| c.repeats_passes()) {
                case.min_trial_ns = Some(ns);
            }
        }
        if plan.groups().len() != 1 || plan.cases.len() != 2 {
            return Err(Error::Plan(format!(
                "map compares two cases at each point; these flags make {} case(s) in {} group(s): \
                 give one value to each list flag",
                plan.cases.len(),
                plan.groups().len()
            )));
        }
        Ok(plan)
    }

    /// Checks, before anything runs, that both ends of the range make a
    /// plan and that no output clobbers an input, another output or one of
    /// faultline's own files.
    pub fn check(&self) -> Result<()> {
        self.plan_at(self.axis.low)?;
        self.plan_at(self.axis.high)?;
        let dir = &self.config.data_dir;
        let own = [
            dir.clone(),
            dir.join("runs"),
            dir.join(crate::files::scratch::SUBDIR),
        ];
        let mut files = Files::new(&own);
        files.input("the data directory", dir)?;
        if let Some(f) = &self.config.file {
            files.input("--file", f)?;
        }
        if let Some(p) = &self.export_json {
            files.output("--export-json", p)?;
        }
        if let Some(p) = &self.report {
            files.output("--report", p)?;
        }
        Ok(())
    }

    /// The value snapped to one the factor can take.
    pub fn snap(&self, x: f64) -> f64 {
        (self.factor.snap)(x, &self.factors)
    }

    /// The trials a full grid at the resolution would take under this map's
    /// rules: its points, each with the cases of a point's plan, from the
    /// planned runs to the precision rule's most.
    pub fn grid_trials(&self) -> Result<GridTrials> {
        let plan = self.plan_at(self.axis.low)?;
        let max_runs = self
            .config
            .statistics_or_default()
            .precision
            .map_or(plan.runs, |p| p.max_runs);
        Ok(GridTrials::of(
            self.axis.grid_points(),
            plan.cases.len(),
            plan.runs,
            max_runs,
        ))
    }

    /// The results so far.
    fn results(
        &self,
        points: &[MapPoint],
        grid: GridTrials,
        stopped: Stopped,
        started: Instant,
    ) -> MapResults {
        let label = |x: f64| self.factor.unit.label(x);
        let first = points.first();
        let methods = match first {
            Some(p) => [p.baseline.label.clone(), p.other.label.clone()],
            None => [
                self.factors.methods[0].to_string(),
                self.factors.methods[1].to_string(),
            ],
        };
        let mut distinct: Vec<f64> = points.iter().map(|p| p.value).collect();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        MapResults {
            faultline_map: map_results::FORMAT,
            factor: self.factor.name.to_string(),
            unit: self.factor.unit.name().to_string(),
            noun: self.factor.noun.to_string(),
            methods,
            fixed: self.fixed.clone(),
            axis: self.axis,
            margin: self.margin,
            crossovers: map_results::crossovers(self.factor.name, &self.axis, points, &label),
            points: points.to_vec(),
            trials: points.iter().map(|p| p.trials).sum(),
            distinct_points: distinct.len(),
            grid_points: self.axis.grid_points(),
            grid_trials: grid,
            stopped,
            elapsed_s: started.elapsed().as_secs_f64(),
            budget_s: self.budget_s,
            environment: None,
            command_line: std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            warnings: Vec::new(),
        }
    }

    /// Writes the exports asked for.
    fn write(&self, results: &MapResults) -> Result<()> {
        if let Some(p) = &self.export_json {
            crate::report::map::write_json(results, p)?;
        }
        if let Some(p) = &self.report {
            crate::report::map::write_html(results, p)?;
        }
        Ok(())
    }

    /// Measures one point's plan as one session whose precision rule may
    /// take at most `share` seconds, its warnings kept for the end and its
    /// journal removed (a map has no --resume: what it measured is in its
    /// exports).
    pub(crate) fn measure(&self, plan: Plan, share: f64) -> Result<super::Finished> {
        let mut config = self.config.clone();
        if let Some(p) = config.statistics.get_or_insert_default().precision.as_mut() {
            p.max_time_s = Some(p.max_time_s.map_or(share, |t| t.min(share)));
            // A point far from any boundary stops once its verdict is
            // decided (at a level made stricter for the looks).
            p.until_decided = true;
        }
        // Each point's warnings are said once, at the end, not per point.
        let quiet = crate::console::quiet();
        crate::console::set_quiet(true);
        let finished = Session::fresh(plan, &config).and_then(Session::run);
        crate::console::set_quiet(quiet);
        let finished = finished?;
        if !finished.journal_removed {
            let _ = std::fs::remove_file(&finished.journal);
        }
        Ok(finished)
    }

    /// Runs the search. Each point is one session; a signal stops the
    /// search after the point it interrupted (whose finished trials are
    /// kept when they make a comparison).
    pub fn run(&self) -> Result<MapOutcome> {
        let started = Instant::now();
        let stop = std::sync::Arc::clone(crate::system::stop_flag());
        let mut points: Vec<MapPoint> = Vec::new();
        let mut environment = None;
        let mut warnings: Vec<String> = Vec::new();
        let grid = self.grid_trials()?;
        let mut todo = self.axis.coarse(&|x| self.snap(x));
        let mut round = 0;
        let stopped = 'search: loop {
            if todo.is_empty() {
                break Stopped::Converged;
            }
            for (i, &value) in todo.iter().enumerate() {
                let elapsed = started.elapsed().as_secs_f64();
                let per_point = if points.is_empty() {
                    0.0
                } else {
                    elapsed / points.len() as f64
                };
                if elapsed + per_point > self.budget_s {
                    break 'search Stopped::Budget;
                }
                if stop.load(Ordering::SeqCst) {
                    break 'search Stopped::Interrupted;
                }
                // This point's share of what is left: its precision rule
                // adds runs only within it.
                let left = (self.budget_s - elapsed).max(0.001);
                let share = left / (todo.len() - i) as f64;
                let plan = self.plan_at(value)?;
                let point_started = Instant::now();
                let finished = self.measure(plan, share)?;
                environment.get_or_insert_with(|| finished.results.environment.clone());
                for w in &finished.results.warnings {
                    if !warnings.contains(w) {
                        warnings.push(w.clone());
                    }
                }
                let point = MapPoint::from_run(
                    value,
                    self.factor.unit.label(value),
                    round,
                    &finished.results,
                    self.margin,
                    point_started.elapsed().as_secs_f64(),
                );
                if let Some(point) = point {
                    if !self.quiet {
                        eprintln!(
                            "{}",
                            crate::report::map::point_line(&point, self.factor.name)
                        );
                    }
                    points.push(point);
                }
                let mut so_far = self.results(&points, grid, Stopped::Interrupted, started);
                so_far.environment = environment.clone();
                so_far.warnings = warnings.clone();
                self.write(&so_far)?;
                if finished.interrupted {
                    break 'search Stopped::Interrupted;
                }
            }
            round += 1;
            todo = crossover::next_points(&self.axis, &map_results::observations(&points), &|x| {
                self.snap(x)
            });
        };
        let mut results = self.results(&points, grid, stopped, started);
        results.environment = environment;
        results.warnings = warnings;
        self.write(&results)?;
        Ok(MapOutcome { results })
    }
}
