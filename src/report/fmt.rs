//! Number formatting shared by the table, the verdicts and the Markdown report.
//!
//! Numbers are rounded, never invented: a missing value prints as `-`, and a
//! small value keeps enough decimals to show two significant digits instead of
//! collapsing to zero.

/// What a missing value prints as.
pub(crate) const MISSING: &str = "-";

/// `x` with `min_decimals` decimals, or more when those would show no
/// significant digit: then two significant digits are kept (0.25 with 0
/// decimals prints `0.25`, not `0`; 0.05 with 2 prints `0.05`). At most 6.
pub(crate) fn num(x: f64, min_decimals: usize) -> String {
    format!("{x:.prec$}", prec = decimals(x, min_decimals))
}

/// The decimals [`num`] uses for `x`.
fn decimals(x: f64, min_decimals: usize) -> usize {
    if !x.is_finite() || x == 0.0 {
        return min_decimals;
    }
    // Decimals needed to show the first significant digit.
    let first = (-x.abs().log10().floor()).max(0.0) as usize;
    if first <= min_decimals {
        min_decimals
    } else {
        (first + 1).min(6)
    }
}

/// [`num`], or `-` when absent.
pub(crate) fn opt_num(x: Option<f64>, min_decimals: usize) -> String {
    x.map_or_else(|| MISSING.to_string(), |x| num(x, min_decimals))
}

/// `mean ± spread` with the decimals of the mean, or `mean ±?` when the
/// spread is unknown.
pub(crate) fn plus_minus(mean: f64, spread: Option<f64>, min_decimals: usize) -> String {
    let prec = decimals(mean, min_decimals);
    match spread {
        Some(s) => format!("{mean:.prec$} ± {s:.prec$}"),
        None => format!("{mean:.prec$} ±?"),
    }
}

/// Half the width of a confidence interval.
pub(crate) fn half_width(ci: Option<(f64, f64)>) -> Option<f64> {
    ci.map(|(low, high)| (high - low) / 2.0)
}

/// A ratio with two decimals.
pub(crate) fn ratio(x: f64) -> String {
    format!("{x:.2}")
}

/// Nanoseconds as milliseconds.
pub(crate) fn ms(ns: f64) -> f64 {
    ns / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_two_significant_digits_of_small_values() {
        assert_eq!(num(2.0, 2), "2.00");
        assert_eq!(num(1234.567, 2), "1234.57");
        assert_eq!(num(64.0, 0), "64");
        assert_eq!(num(0.25, 0), "0.25");
        assert_eq!(num(0.0523, 2), "0.05");
        assert_eq!(num(0.0043, 2), "0.0043");
        assert_eq!(num(0.31, 2), "0.31");
        assert_eq!(num(0.0, 1), "0.0");
        assert_eq!(num(-0.25, 0), "-0.25");
        assert_eq!(num(1e-12, 1), "0.000000");
        assert_eq!(num(0.5, 1), "0.5");
        assert_eq!(num(f64::NAN, 2), "NaN");
    }

    #[test]
    fn missing_values_print_as_a_dash() {
        assert_eq!(opt_num(None, 2), "-");
        assert_eq!(opt_num(Some(1.5), 2), "1.50");
        assert_eq!(plus_minus(2.0, None, 2), "2.00 ±?");
        assert_eq!(plus_minus(2.0, Some(0.05), 2), "2.00 ± 0.05");
        assert_eq!(plus_minus(1.86, Some(0.093), 2), "1.86 ± 0.09");
        assert_eq!(plus_minus(0.004, Some(0.0012), 2), "0.0040 ± 0.0012");
        assert_eq!(half_width(Some((1.0, 3.0))), Some(1.0));
        assert_eq!(half_width(None), None);
    }
}
