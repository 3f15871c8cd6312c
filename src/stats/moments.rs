//! The moments every statistic here is built on: mean, median and sample
//! standard deviation of finite values, robust to overflow. Nothing else.

/// Median of values sorted in increasing order: the middle value, or the
/// mean of the two middle values for an even count. The result lies between
/// the two middle values. `sorted` must be non-empty and finite.
pub(crate) fn median_of_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        return sorted[n / 2];
    }
    let (a, b) = (sorted[n / 2 - 1], sorted[n / 2]);
    let sum = a + b;
    let mid = if sum.is_finite() {
        sum / 2.0
    } else {
        a / 2.0 + b / 2.0
    };
    mid.clamp(a, b)
}

/// Median of finite values in any order; `None` when empty.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some(median_of_sorted(&sorted))
}

/// Arithmetic mean of non-empty, finite values, clamped to their range.
///
/// Falls back to summing `v / n` when the plain sum overflows, so the result
/// is always finite.
pub(crate) fn mean(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let sum: f64 = values.iter().sum();
    let m = if sum.is_finite() {
        sum / n
    } else {
        values.iter().map(|v| v / n).sum()
    };
    let (lo, hi) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    m.clamp(lo, hi)
}

/// Sample standard deviation (divisor `n - 1`) of finite values around
/// their `mean`; 0 for fewer than two values.
///
/// If the sum of squared deviations overflows, the values are scaled by
/// 2^-600 (exact) and the result scaled back.
pub(crate) fn sample_sd(values: &[f64], mean: f64) -> f64 {
    if values.len() < 2 {
        return 0.0;
    }
    let sd = sd_scaled(values, mean, 1.0);
    if sd.is_finite() {
        sd
    } else {
        // 2^-600 and 2^600, built exactly from their exponent bits.
        let down = f64::from_bits((1023 - 600) << 52);
        let up = f64::from_bits((1023 + 600) << 52);
        sd_scaled(values, mean, down) * up
    }
}

/// Sample sd of `values · scale` around `mean · scale`.
fn sd_scaled(values: &[f64], mean: f64, scale: f64) -> f64 {
    let m = mean * scale;
    let ss: f64 = values
        .iter()
        .map(|v| {
            let d = v * scale - m;
            d * d
        })
        .sum();
    (ss / (values.len() - 1) as f64).sqrt()
}
