//! The results of `faultline map` as its exports and reports see them: every
//! point measured along the factor (its comparison, verdict, side and both
//! cases with their samples), the crossovers the points show, and what the
//! search cost against a full grid.
//!
//! Assembled from the runs of the points ([`MapPoint::from_run`]) and the
//! pure search ([`crate::stats::crossover`]); nothing here measures.
use serde::{Deserialize, Serialize};

use crate::measure::environment::Environment;
use crate::results::{CaseResult, RunResults};
use crate::stats::crossover::{self, Axis, Bracket, Observation, Side};
use crate::stats::{RatioEstimate, Verdict};

/// The format version of a map export.
pub const FORMAT: u32 = 1;

/// Everything one map produced.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MapResults {
    /// Export format version ([`FORMAT`]).
    pub faultline_map: u32,
    /// The factor swept, e.g. `block`.
    pub factor: String,
    /// Its unit, e.g. `bytes`.
    pub unit: String,
    /// What its values are called in a sentence, e.g. `blocks`.
    pub noun: String,
    /// The first method (A, the baseline) and the second (B), with options.
    pub methods: [String; 2],
    /// What every point shares, e.g. `random sum, warm, 16 MiB`.
    pub fixed: String,
    /// The range, its scale and the resolution asked for.
    pub axis: Axis,
    /// The no-effect band's half-width (0.05: within ×/÷ 1.05 is no difference).
    pub margin: f64,
    /// The boundaries found, in order along the factor.
    pub crossovers: Vec<Crossover>,
    /// Every measurement, in the order it was made.
    pub points: Vec<MapPoint>,
    /// Measured trials over all points: every sample of both methods
    /// (excluded and retried ones included, warm-ups not).
    pub trials: usize,
    /// Distinct values measured.
    pub distinct_points: usize,
    /// How many points a full grid at the resolution would take.
    pub grid_points: usize,
    /// The trials such a grid would take under the same rules.
    #[serde(default)]
    pub grid_trials: GridTrials,
    /// Why the search stopped.
    pub stopped: Stopped,
    /// Seconds the search took.
    pub elapsed_s: f64,
    /// The time budget, seconds.
    pub budget_s: f64,
    /// The machine, from the first point.
    pub environment: Option<Environment>,
    /// The command line as given.
    pub command_line: Vec<String>,
    /// Warnings the points raised, each once.
    pub warnings: Vec<String>,
}

/// The measured trials a full grid would take under the map's rules: at
/// each of its points every case runs from the planned runs (`--runs`, when
/// the precision target is met at once) to `--max-runs` (when it is never
/// met), as `run` over the same values would; warm-ups and retries of
/// interfered trials not counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridTrials {
    /// Points of the grid.
    pub points: usize,
    /// Cases compared at each point (2).
    pub cases: usize,
    /// Runs per case at the fewest.
    pub runs: u32,
    /// Runs per case at the most.
    pub max_runs: u32,
    /// `points · cases · runs`.
    pub least: usize,
    /// `points · cases · max_runs`.
    pub most: usize,
}

impl GridTrials {
    /// The grid of `points` points of `cases` cases each, with `runs` to
    /// `max_runs` runs per case (`max_runs` below `runs` counts as `runs`).
    pub fn of(points: usize, cases: usize, runs: u32, max_runs: u32) -> GridTrials {
        let max_runs = max_runs.max(runs);
        GridTrials {
            points,
            cases,
            runs,
            max_runs,
            least: points * cases * runs as usize,
            most: points * cases * max_runs as usize,
        }
    }

    /// `trials` as a share (0–1) of the grid's most and of its least
    /// trials; `None` for an empty grid.
    pub fn share(&self, trials: usize) -> Option<(f64, f64)> {
        (self.least > 0).then(|| {
            (
                trials as f64 / self.most as f64,
                trials as f64 / self.least as f64,
            )
        })
    }
}

/// Why a search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stopped {
    /// Every bracket is as tight as asked (or cannot be split further).
    Converged,
    /// `--max-time` was spent first.
    Budget,
    /// Ctrl-C or SIGTERM.
    Interrupted,
}

/// One boundary along the factor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Crossover {
    /// The factor, e.g. `block`.
    pub factor: String,
    /// The last value measured with the verdict below, in the factor's unit.
    pub low: f64,
    /// The first value measured with the verdict above, in the factor's unit.
    pub high: f64,
    /// `low` as a person reads it, e.g. `32 KiB`.
    pub low_label: String,
    /// `high` as a person reads it.
    pub high_label: String,
    /// The verdict at and below `low`.
    pub below: Side,
    /// The verdict at and above `high`.
    pub above: Side,
    /// Points measured between, each unsettled.
    pub unsettled_between: usize,
    /// Whether `high / low` (or `high - low`) is within the resolution.
    pub tight: bool,
}

/// One measurement of one value.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MapPoint {
    /// The factor's value, in its unit.
    pub value: f64,
    /// The value as a person reads it.
    pub label: String,
    /// Which round of the search measured it (0: the coarse grid).
    pub round: usize,
    /// Throughput of B over throughput of A, paired by run, with its 95% CI;
    /// `None` when fewer than two pairs were measured.
    pub ratio: Option<RatioEstimate>,
    /// The engine's verdict, as `run` gives it.
    pub verdict: Verdict,
    /// The p-value after the run's adjustment.
    pub p_adjusted: Option<f64>,
    /// What the point says: A faster, no difference, B faster or unsettled.
    pub side: Side,
    /// Trials measured for this point.
    pub trials: usize,
    /// Seconds the point's run took, files and setup included.
    pub seconds: f64,
    /// A's case with its samples and summary.
    pub baseline: CaseResult,
    /// B's case with its samples and summary.
    pub other: CaseResult,
}

impl MapPoint {
    /// The point of a run that compared B with A at `value`: its one
    /// comparison (`None` when the run has none, e.g. every trial failed).
    pub fn from_run(
        value: f64,
        label: String,
        round: usize,
        run: &RunResults,
        margin: f64,
        seconds: f64,
    ) -> Option<MapPoint> {
        let cmp = run.comparisons.first()?;
        let baseline = run.case(cmp.baseline)?.clone();
        let other = run.case(cmp.other)?.clone();
        let pairs = cmp.throughput_ratio.pairs;
        let ratio = (pairs >= 2).then(|| cmp.throughput_ratio.clone());
        let side = match &ratio {
            Some(r) => crossover::side_of(r, cmp.verdict, margin),
            None => Side::Unsettled,
        };
        Some(MapPoint {
            value,
            label,
            round,
            ratio,
            verdict: cmp.verdict,
            p_adjusted: cmp.p_adjusted,
            side,
            trials: baseline.samples.len() + other.samples.len(),
            seconds,
            baseline,
            other,
        })
    }

    /// The observation the search sees.
    pub fn observation(&self) -> Observation {
        Observation {
            x: self.value,
            side: self.side,
        }
    }
}

/// The observations of `points`.
pub fn observations(points: &[MapPoint]) -> Vec<Observation> {
    points.iter().map(MapPoint::observation).collect()
}

/// The crossovers `points` show on `axis`, each labelled by `label`.
pub fn crossovers(
    factor: &str,
    axis: &Axis,
    points: &[MapPoint],
    label: &dyn Fn(f64) -> String,
) -> Vec<Crossover> {
    crossover::brackets(axis, &observations(points))
        .into_iter()
        .map(|b: Bracket| Crossover {
            factor: factor.to_string(),
            low: b.low,
            high: b.high,
            low_label: label(b.low),
            high_label: label(b.high),
            below: b.below,
            above: b.above,
            unsettled_between: b.unsettled_between,
            tight: b.tight,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_counts_every_case_s_runs_at_every_point() {
        // 26 block sizes, read and stdio, 5 to 10 runs each: 260 to 520.
        let g = GridTrials::of(26, 2, 5, 10);
        assert_eq!((g.least, g.most), (260, 520));
        let (of_most, of_least) = g.share(130).unwrap();
        assert!((of_most - 0.25).abs() < 1e-12 && (of_least - 0.5).abs() < 1e-12);
        // Without a precision target the runs are fixed.
        let fixed = GridTrials::of(26, 2, 10, 0);
        assert_eq!((fixed.least, fixed.most), (520, 520));
        assert_eq!(GridTrials::of(0, 2, 5, 10).share(10), None);
    }

    #[test]
    fn a_point_takes_its_side_from_the_verdict_and_counts_both_cases_trials() {
        // mmap against read, 1.42x [1.38–1.46], faster; 3 samples each.
        let mut run = crate::fixtures::results();
        let p = MapPoint::from_run(4096.0, "4 KiB".into(), 0, &run, 0.05, 1.0).unwrap();
        assert_eq!(p.side, Side::BFaster);
        assert_eq!(p.trials, 6);
        assert_eq!(p.other.label, "mmap");
        run.comparisons[0].throughput_ratio.pairs = 1;
        let p = MapPoint::from_run(4096.0, "4 KiB".into(), 0, &run, 0.05, 1.0).unwrap();
        assert_eq!(p.side, Side::Unsettled, "one pair decides nothing");
        run.comparisons.clear();
        assert!(MapPoint::from_run(4096.0, "4 KiB".into(), 0, &run, 0.05, 1.0).is_none());
    }
}
