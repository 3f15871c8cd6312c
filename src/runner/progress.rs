//! The run's progress bar: the share of the run done, which never moves
//! backwards, the trials done of those expected (the precision rule's
//! expected rounds included), the time elapsed and the time left.
//!
//! The bar shows time, not trials: a cold random trial can take a hundred
//! warm ones' time, and rounds the precision rule adds would otherwise make
//! the total grow and the bar jump back.
use std::time::{Duration, Instant};

use super::eta::Eta;

/// Steps of the bar (it shows thousandths).
const STEPS: u64 = 1000;

/// A share that only grows, in thousandths, below the whole until the run
/// ends.
#[derive(Debug, Default)]
pub struct Monotone {
    shown: u64,
}

impl Monotone {
    /// The position to show for `fraction` done: the larger of it and what
    /// was shown, at most one step short of the end.
    pub fn update(&mut self, fraction: f64) -> u64 {
        let step = if fraction.is_finite() {
            (fraction.clamp(0.0, 1.0) * STEPS as f64).floor() as u64
        } else {
            0
        };
        self.shown = self.shown.max(step.min(STEPS - 1));
        self.shown
    }
}

/// The share of the run done: time spent over time spent and left when the
/// time left is known, else trials done over trials expected.
pub fn fraction(done: u64, expected: u64, elapsed: Duration, left: Option<Duration>) -> f64 {
    match left {
        Some(left) if !(elapsed + left).is_zero() => {
            elapsed.as_secs_f64() / (elapsed + left).as_secs_f64()
        }
        _ => done as f64 / expected.max(1) as f64,
    }
}

/// `1m 05s` or `13s`.
fn duration_text(d: Duration) -> String {
    let s = d.as_secs_f64().round() as u64;
    if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// The bar and the estimate behind it.
pub struct Progress<'a> {
    bar: &'a indicatif::ProgressBar,
    /// The time left, from the trials so far.
    pub eta: Eta,
    started: Instant,
    position: Monotone,
}

impl<'a> Progress<'a> {
    /// Drives `bar` (whose template shows `{bar}`, `{prefix}` and `{msg}`)
    /// from `eta`, counting time from now.
    pub fn new(bar: &'a indicatif::ProgressBar, eta: Eta) -> Progress<'a> {
        bar.set_length(STEPS);
        let mut progress = Progress {
            bar,
            eta,
            started: Instant::now(),
            position: Monotone::default(),
        };
        progress.refresh();
        progress
    }

    /// Redraws from the estimate: `79/~100 trials, 13s elapsed, ~20s left`.
    pub fn refresh(&mut self) {
        let elapsed = self.started.elapsed();
        let done = self.eta.done();
        let expected = self.eta.expected_total(elapsed).max(done);
        let left = self.eta.left(elapsed);
        self.bar.set_position(
            self.position
                .update(fraction(done, expected, elapsed, left)),
        );
        self.bar.set_prefix(format!(
            "{done}/{expected} trials, {} elapsed, {}",
            duration_text(elapsed),
            self.eta.text(elapsed)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_never_moves_backwards_and_ends_only_at_the_end() {
        let mut m = Monotone::default();
        assert_eq!(m.update(0.5), 500);
        // More rounds were added: the share done fell; the bar stays.
        assert_eq!(m.update(0.3), 500);
        assert_eq!(m.update(0.7), 700);
        assert_eq!(m.update(f64::NAN), 700);
        // "Nothing left" while trials still run is one step short.
        assert_eq!(m.update(1.0), STEPS - 1);
        assert_eq!(m.update(2.0), STEPS - 1);
    }

    #[test]
    fn the_share_is_of_time_once_the_time_left_is_known() {
        let s = Duration::from_secs;
        assert_eq!(fraction(10, 40, s(5), None), 0.25);
        assert_eq!(fraction(10, 40, s(5), Some(s(15))), 0.25);
        // One slow trial done of two: half the trials, a tenth of the time.
        assert!((fraction(1, 2, s(1), Some(s(9))) - 0.1).abs() < 1e-12);
        assert_eq!(fraction(0, 0, Duration::ZERO, Some(Duration::ZERO)), 0.0);
        assert_eq!(duration_text(s(65)), "1m 05s");
        assert_eq!(duration_text(s(13)), "13s");
    }
}
