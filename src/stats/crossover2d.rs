//! The 2-D crossover search of `faultline map --over X=… --over Y=…`: where
//! on a plane of two factors the verdict of a paired comparison changes.
//!
//! Pure arithmetic on observations, like [`super::crossover`], whose 1-D
//! search it runs along lines of the plane:
//! 1. a coarse grid: every value of X's coarse grid with every value of Y's
//!    ([`Grid::coarse`]);
//! 2. then, round after round ([`next_points`]), along every **row** (the
//!    points measured at one value of Y) and every **column** (at one value
//!    of X) that holds two or more points, the 1-D rule: a lone verdict
//!    that ends a bracket is measured again, and the widest gap inside each
//!    bracket that is not yet tight is split. A point added in a row makes a
//!    new column with one point in it, which asks for nothing: the plane is
//!    refined only where neighbouring cells' verdicts differ, never
//!    everywhere;
//! 3. until every boundary is bracketed within the resolution of its factor
//!    or nothing can be split (the driver also stops on its time budget).
//!
//! A full grid at the same resolution would measure `X.grid_points() *
//! Y.grid_points()` points ([`Grid::grid_points`]).
use serde::{Deserialize, Serialize};

use super::crossover::{self, Axis, Bracket, Observation, Side};

/// The plane searched: X (the columns) and Y (the rows).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    /// The first factor's range, scale and resolution.
    pub x: Axis,
    /// The second factor's.
    pub y: Axis,
}

/// One measurement of one cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observation2 {
    /// The first factor's value.
    pub x: f64,
    /// The second factor's value.
    pub y: f64,
    /// What the comparison said.
    pub side: Side,
}

/// Which factor a boundary is crossed along.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Along {
    /// Along X, in a row (Y fixed).
    X,
    /// Along Y, in a column (X fixed).
    Y,
}

/// A boundary found in one row or column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Boundary {
    /// The factor it is crossed along.
    pub along: Along,
    /// The other factor's value, fixed on its line.
    pub at: f64,
    /// The bracket along the line.
    pub bracket: Bracket,
}

impl Grid {
    /// The coarse grid: X's coarse values with each of Y's, row by row.
    pub fn coarse(
        &self,
        snap_x: &dyn Fn(f64) -> f64,
        snap_y: &dyn Fn(f64) -> f64,
    ) -> Vec<(f64, f64)> {
        let xs = self.x.coarse(snap_x);
        let ys = self.y.coarse(snap_y);
        ys.iter()
            .flat_map(|&y| xs.iter().map(move |&x| (x, y)))
            .collect()
    }

    /// How many cells a full grid at both resolutions would take.
    pub fn grid_points(&self) -> usize {
        self.x.grid_points() * self.y.grid_points()
    }

    /// The axis a line along `along` runs on.
    pub fn axis(&self, along: Along) -> &Axis {
        match along {
            Along::X => &self.x,
            Along::Y => &self.y,
        }
    }
}

/// The lines along `along`: each fixed value of the other factor (in order)
/// with the 1-D observations on it (their `x` the coordinate along the
/// line).
pub fn lines(observations: &[Observation2], along: Along) -> Vec<(f64, Vec<Observation>)> {
    let split = |o: &Observation2| match along {
        Along::X => (o.y, o.x),
        Along::Y => (o.x, o.y),
    };
    let mut fixed: Vec<f64> = observations.iter().map(|o| split(o).0).collect();
    fixed.sort_by(f64::total_cmp);
    fixed.dedup();
    fixed
        .into_iter()
        .map(|at| {
            let on: Vec<Observation> = observations
                .iter()
                .filter(|o| split(o).0 == at)
                .map(|o| Observation {
                    x: split(o).1,
                    side: o.side,
                })
                .collect();
            (at, on)
        })
        .collect()
}

/// Whether a line holds two or more distinct values: a line of one point
/// (a column a row's refinement made) says nothing about a boundary.
fn is_line(on: &[Observation]) -> bool {
    on.iter().any(|o| o.x != on[0].x)
}

/// Each cell once, with its side (the side every measurement of it gave,
/// else unsettled) and how many times it was measured, row by row.
pub fn cells(observations: &[Observation2]) -> Vec<(f64, f64, Side, usize)> {
    lines(observations, Along::X)
        .into_iter()
        .flat_map(|(y, on)| {
            crossover::side_at(&on)
                .into_iter()
                .map(move |(x, side, n)| (x, y, side, n))
        })
        .collect()
}

/// Every boundary the observations show: the brackets of each row, then
/// of each column.
pub fn boundaries(grid: &Grid, observations: &[Observation2]) -> Vec<Boundary> {
    let mut out = Vec::new();
    for along in [Along::X, Along::Y] {
        for (at, on) in lines(observations, along) {
            if !is_line(&on) {
                continue;
            }
            for bracket in crossover::brackets(grid.axis(along), &on) {
                out.push(Boundary { along, at, bracket });
            }
        }
    }
    out
}

/// The cells to measure next (empty: the search is done): along every row
/// and column of two or more points, what the 1-D search asks for there.
/// Each cell once, in order.
pub fn next_points(
    grid: &Grid,
    observations: &[Observation2],
    snap_x: &dyn Fn(f64) -> f64,
    snap_y: &dyn Fn(f64) -> f64,
) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    for along in [Along::X, Along::Y] {
        let snap = match along {
            Along::X => snap_x,
            Along::Y => snap_y,
        };
        for (at, on) in lines(observations, along) {
            if !is_line(&on) {
                continue;
            }
            for v in crossover::next_points(grid.axis(along), &on, snap) {
                let cell = match along {
                    Along::X => (v, at),
                    Along::Y => (at, v),
                };
                if !out.contains(&cell) {
                    out.push(cell);
                }
            }
        }
    }
    out.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.total_cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::crossover::Scale;
    use crate::stats::RatioEstimate;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const K: f64 = 1024.0;
    const M: f64 = 1024.0 * 1024.0;

    fn snap_kib(x: f64) -> f64 {
        (x / K).round().max(1.0) * K
    }

    /// Blocks 4 KiB to 1 MiB and file sizes 1 MiB to 256 MiB, at 1.25x.
    fn plane() -> Grid {
        Grid {
            x: Axis {
                low: 4.0 * K,
                high: M,
                scale: Scale::Log,
                resolution: 1.25,
            },
            y: Axis {
                low: M,
                high: 256.0 * M,
                scale: Scale::Log,
                resolution: 1.25,
            },
        }
    }

    /// Runs the search to its end: `side(x, y, k)` is the side of the `k`th
    /// measurement of the cell.
    fn search(grid: &Grid, mut side: impl FnMut(f64, f64, usize) -> Side) -> Vec<Observation2> {
        let mut obs: Vec<Observation2> = Vec::new();
        let mut todo = grid.coarse(&snap_kib, &snap_kib);
        for _round in 0..200 {
            if todo.is_empty() {
                return obs;
            }
            for (x, y) in todo {
                let k = obs.iter().filter(|o| o.x == x && o.y == y).count();
                obs.push(Observation2 {
                    x,
                    y,
                    side: side(x, y, k),
                });
            }
            todo = next_points(grid, &obs, &snap_kib, &snap_kib);
        }
        panic!("the search did not end in 200 rounds");
    }

    fn distinct(obs: &[Observation2]) -> usize {
        cells(obs).len()
    }

    /// The boundaries along X, by row.
    fn row_brackets(grid: &Grid, obs: &[Observation2]) -> Vec<(f64, Bracket)> {
        boundaries(grid, obs)
            .into_iter()
            .filter(|b| b.along == Along::X)
            .map(|b| (b.at, b.bracket))
            .collect()
    }

    #[test]
    fn one_boundary_is_bracketed_in_every_row_at_a_fraction_of_the_grid() {
        // B faster below 48 KiB blocks whatever the file size.
        let grid = plane();
        let flip = 48.0 * K;
        let obs = search(&grid, |x, _, _| {
            if x < flip {
                Side::BFaster
            } else {
                Side::AFaster
            }
        });
        let rows = grid.y.coarse(&snap_kib);
        let found = row_brackets(&grid, &obs);
        assert_eq!(found.len(), rows.len(), "{found:?}");
        for (y, b) in &found {
            assert!(rows.contains(y));
            assert!(b.low < flip && flip <= b.high, "{b:?}");
            assert!(b.tight, "{b:?}");
            assert_eq!((b.below, b.above), (Side::BFaster, Side::AFaster));
        }
        // No boundary along the file size: every column agrees.
        assert!(boundaries(&grid, &obs).iter().all(|b| b.along == Along::X));
        // 26 x 26 = 676 cells in the full grid.
        assert_eq!(grid.grid_points(), 676);
        assert!(
            distinct(&obs) * 10 <= grid.grid_points(),
            "{} cells",
            distinct(&obs)
        );
    }

    #[test]
    fn a_diagonal_boundary_is_bracketed_along_both_factors() {
        // B faster while the block is below 1/256 of the file size: the
        // boundary moves with both factors.
        let grid = plane();
        let b_faster = |x: f64, y: f64| x * 256.0 < y;
        let obs = search(&grid, |x, y, _| {
            if b_faster(x, y) {
                Side::BFaster
            } else {
                Side::AFaster
            }
        });
        let found = boundaries(&grid, &obs);
        assert!(found.iter().any(|b| b.along == Along::X));
        assert!(found.iter().any(|b| b.along == Along::Y));
        for b in &found {
            // Every bracket holds the true boundary between its ends.
            let (lo, hi) = match b.along {
                Along::X => ((b.bracket.low, b.at), (b.bracket.high, b.at)),
                Along::Y => ((b.at, b.bracket.low), (b.at, b.bracket.high)),
            };
            assert_ne!(b_faster(lo.0, lo.1), b_faster(hi.0, hi.1), "{b:?}");
            assert!(b.bracket.tight, "{b:?}");
        }
        // Every measured cell's side is the curve's.
        for (x, y, side, _) in cells(&obs) {
            assert_eq!(side == Side::BFaster, b_faster(x, y), "{x} {y}");
        }
        assert!(
            distinct(&obs) * 3 <= grid.grid_points(),
            "{} cells of {}",
            distinct(&obs),
            grid.grid_points()
        );
    }

    #[test]
    fn two_boundaries_in_a_row_are_both_bracketed() {
        // A faster for middle blocks only, at every file size: B, A, B.
        let grid = plane();
        let (first, second) = (16.0 * K, 200.0 * K);
        let obs = search(&grid, |x, _, _| {
            if x < first || x >= second {
                Side::BFaster
            } else {
                Side::AFaster
            }
        });
        let rows = grid.y.coarse(&snap_kib).len();
        let found = row_brackets(&grid, &obs);
        assert_eq!(found.len(), 2 * rows, "{found:?}");
        assert_eq!(
            found
                .iter()
                .filter(|(_, b)| b.low < first && first <= b.high && b.above == Side::AFaster)
                .count(),
            rows
        );
        assert_eq!(
            found
                .iter()
                .filter(|(_, b)| b.low < second && second <= b.high && b.above == Side::BFaster)
                .count(),
            rows
        );
        assert!(found.iter().all(|(_, b)| b.tight));
    }

    #[test]
    fn no_boundary_takes_the_coarse_grid_only() {
        let grid = plane();
        let obs = search(&grid, |_, _, _| Side::AFaster);
        assert!(boundaries(&grid, &obs).is_empty());
        assert_eq!(obs.len(), grid.coarse(&snap_kib, &snap_kib).len());
        assert_eq!(obs.len(), 25, "5 blocks by 5 file sizes");
    }

    /// How many of `seeds` searches of a flat plane at ratio 1 report a
    /// winner in any cell (each measurement's 95% CI misses 1 about one
    /// time in twenty, as a real one does).
    fn flat_winners(seeds: u64) -> (usize, usize) {
        let grid = plane();
        let (mut with_winner, mut with_boundary) = (0, 0);
        for seed in 0..seeds {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let obs = search(&grid, |_, _, _| {
                let centre = 1.0 + rng.random_range(-0.0413..0.0413);
                let est = RatioEstimate {
                    ratio: centre,
                    ci95_low: centre / 1.04,
                    ci95_high: centre * 1.04,
                    pairs: 10,
                };
                crossover::side_of(&est, est.verdict(), 0.05)
            });
            let winner = cells(&obs)
                .iter()
                .any(|c| matches!(c.2, Side::AFaster | Side::BFaster));
            with_winner += usize::from(winner);
            let winner_boundary = boundaries(&grid, &obs).iter().any(|b| {
                matches!(b.bracket.below, Side::AFaster | Side::BFaster)
                    || matches!(b.bracket.above, Side::AFaster | Side::BFaster)
            });
            with_boundary += usize::from(winner_boundary);
        }
        (with_winner, with_boundary)
    }

    /// A noisy flat plane: a stray verdict in one of its 25 coarse cells is
    /// measured again before it can make a boundary, so few searches
    /// report a winner anywhere.
    #[test]
    fn a_noisy_flat_plane_gets_no_boundary() {
        let (winner, boundary) = flat_winners(200);
        // Without the second measurement, 25 cells each straying one time
        // in twenty would put a winner in about 70% of searches.
        assert!(
            winner <= 10 && boundary <= 10,
            "{winner} of 200 searches with a winner, {boundary} with a boundary"
        );
    }
}
