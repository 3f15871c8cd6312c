//! Power: how many paired runs a comparison needs before its CI is narrow
//! enough to decide, from the spread of its paired log ratios.
//!
//! A CI at level `c` of the mean of `n` paired log ratios with standard
//! deviation `s` has half-width `t(½ + c/2, n − 1) · s / √n`. Given the
//! half-width a verdict needs ([`super::effect::decisive_half_width`]),
//! [`pairs_needed`] finds the smallest `n` that reaches it. The estimate is
//! only as good as `s`: from a pilot of a few pairs it is rough, which is
//! why the settling rule re-plans after every round rather than trusting
//! one plan. Pure arithmetic.
use super::effect::t_quantile;

/// The half-width, in log terms, of a CI at `level` of the mean of `n`
/// paired log ratios with sd `sd` (infinite below 2 pairs).
pub fn half_width(sd: f64, n: usize, level: f64) -> f64 {
    if n < 2 {
        return f64::INFINITY;
    }
    t_quantile(0.5 + level / 2.0, (n - 1) as f64) * sd / (n as f64).sqrt()
}

/// The fewest pairs (at least 2) whose CI at `level` has a half-width of at
/// most `target` (log terms) when the log ratios have sd `sd`; `None` when
/// more than `max` would be needed (or `target` is not positive).
pub fn pairs_needed(sd: f64, target: f64, level: f64, max: usize) -> Option<usize> {
    if target.is_nan() || target <= 0.0 || !sd.is_finite() {
        return None;
    }
    if sd <= 0.0 {
        return Some(2);
    }
    // The normal approximation is a lower bound (t > z): start there.
    let z = t_quantile(0.5 + level / 2.0, 1e6);
    let start = ((z * sd / target).powi(2).floor() as usize).max(2);
    if start > max {
        return None;
    }
    (start..=max).find(|&n| half_width(sd, n, level) <= target)
}

/// The sample standard deviation of `xs` (`None` below 2 values).
pub fn sd(xs: &[f64]) -> Option<f64> {
    if xs.len() < 2 {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    Some((xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pairs_needed_reach_the_target_and_one_fewer_does_not() {
        for (sd, target) in [(0.10, 0.05), (0.03, 0.02), (0.20, 0.095), (0.5, 0.1)] {
            let n = pairs_needed(sd, target, 0.90, 100_000).unwrap();
            assert!(half_width(sd, n, 0.90) <= target, "{sd} {target}");
            if n > 2 {
                assert!(half_width(sd, n - 1, 0.90) > target, "{sd} {target} {n}");
            }
        }
        // Noise 10% per pair, ±5%: about (1.645 · 0.1 / 0.05)² ≈ 11, a little more with t.
        let n = pairs_needed(0.10, 0.05, 0.90, 1000).unwrap();
        assert!((11..=14).contains(&n), "{n}");
    }

    #[test]
    fn edges() {
        assert_eq!(pairs_needed(0.0, 0.01, 0.9, 10), Some(2), "no noise");
        assert_eq!(pairs_needed(0.1, 0.0, 0.9, 10), None, "on an edge");
        assert_eq!(pairs_needed(1.0, 0.001, 0.9, 1000), None, "beyond max");
        assert_eq!(pairs_needed(f64::NAN, 0.1, 0.9, 1000), None);
        assert_eq!(half_width(0.1, 1, 0.9), f64::INFINITY);
        assert_eq!(sd(&[1.0]), None);
        assert!((sd(&[1.0, 3.0]).unwrap() - 2f64.sqrt()).abs() < 1e-12);
    }
}
