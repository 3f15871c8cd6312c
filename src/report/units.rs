//! Units and number formatting, shared by every report. The terminal shows
//! one throughput unit for the whole table (`--units`), one time unit per
//! column and three significant digits, so that a cell never mixes units and
//! never prints `0.00048`; the exports round without inventing: a missing
//! value prints as `-`, and a small value keeps enough decimals to show two
//! significant digits instead of collapsing to zero.

/// The throughput unit the terminal shows (`--units`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ThroughputUnit {
    /// GiB/s when the fastest case reaches 1 GiB/s, else MiB/s.
    #[default]
    Auto,
    /// 2^30 bytes per second.
    #[value(name = "GiB/s", alias = "gibps")]
    GibPerSec,
    /// 10^9 bytes per second.
    #[value(name = "GB/s", alias = "gbps")]
    GbPerSec,
    /// 2^20 bytes per second.
    #[value(name = "MiB/s", alias = "mibps")]
    MibPerSec,
    /// 10^6 bytes per second.
    #[value(name = "MB/s", alias = "mbps")]
    MbPerSec,
}

impl ThroughputUnit {
    /// The concrete unit for values whose largest is `max_bps` (bytes per second).
    pub fn resolve(self, max_bps: f64) -> ThroughputUnit {
        match self {
            ThroughputUnit::Auto if max_bps >= GIB => ThroughputUnit::GibPerSec,
            ThroughputUnit::Auto => ThroughputUnit::MibPerSec,
            unit => unit,
        }
    }

    /// Bytes per second in one of this unit (`Auto` counts as GiB/s).
    pub fn bytes_per_sec(self) -> f64 {
        match self {
            ThroughputUnit::Auto | ThroughputUnit::GibPerSec => GIB,
            ThroughputUnit::GbPerSec => 1e9,
            ThroughputUnit::MibPerSec => MIB,
            ThroughputUnit::MbPerSec => 1e6,
        }
    }

    /// The unit's name, e.g. `GiB/s`.
    pub fn name(self) -> &'static str {
        match self {
            ThroughputUnit::Auto | ThroughputUnit::GibPerSec => "GiB/s",
            ThroughputUnit::GbPerSec => "GB/s",
            ThroughputUnit::MibPerSec => "MiB/s",
            ThroughputUnit::MbPerSec => "MB/s",
        }
    }
}

const GIB: f64 = (1u64 << 30) as f64;
const MIB: f64 = (1u64 << 20) as f64;

/// A time unit chosen for a whole column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// Seconds.
    S,
    /// Milliseconds.
    Ms,
    /// Microseconds.
    Us,
}

impl TimeUnit {
    /// The unit in which the largest of `values_ns` reads best: s from 1 s,
    /// ms from 1 ms, µs below.
    pub fn for_max(max_ns: f64) -> TimeUnit {
        if max_ns >= 1e9 {
            TimeUnit::S
        } else if max_ns >= 1e6 {
            TimeUnit::Ms
        } else {
            TimeUnit::Us
        }
    }

    /// Nanoseconds in one of this unit.
    pub fn ns(self) -> f64 {
        match self {
            TimeUnit::S => 1e9,
            TimeUnit::Ms => 1e6,
            TimeUnit::Us => 1e3,
        }
    }

    /// The unit's name.
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::S => "s",
            TimeUnit::Ms => "ms",
            TimeUnit::Us => "µs",
        }
    }
}

/// Decimals that give `x` three significant digits, at most two decimals:
/// 1234 → 0, 45.6 → 1, 4.56 → 2, 0.456 → 2.
pub fn decimals3(x: f64) -> usize {
    let a = x.abs();
    if !a.is_finite() || a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else {
        2
    }
}

/// `x` with [`decimals3`] decimals; a positive value that would print as
/// zero prints `<0.01`, never a long run of zeros.
pub fn sig3(x: f64) -> String {
    let d = decimals3(x);
    if x == 0.0 {
        return "0".to_string();
    }
    if x > 0.0 && x < 0.005 {
        return "<0.01".to_string();
    }
    format!("{x:.d$}")
}

/// `mean ± spread`, both with the mean's decimals; `mean ±?` without a spread.
pub fn sig3_pm(mean: f64, spread: Option<f64>) -> String {
    let d = decimals3(mean);
    match spread {
        Some(s) => format!("{mean:.d$} ± {s:.d$}"),
        None => format!("{mean:.d$} ±?"),
    }
}

/// A signed percentage with a real minus sign, e.g. `+3.1%`, `−12%`:
/// one decimal under 10%, none above.
pub fn percent(x: f64) -> String {
    let p = x * 100.0;
    let d = if p.abs() < 10.0 { 1 } else { 0 };
    let body = format!("{:.d$}", p.abs());
    let sign = if p < 0.0 && body.chars().any(|c| c.is_ascii_digit() && c != '0') {
        "−"
    } else {
        "+"
    };
    format!("{sign}{body}%")
}

/// Bytes as a human size with one decimal in binary units (`23.5 GiB`).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut unit = 0;
    let mut value = bytes as f64;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

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

/// Seconds with 3 significant-ish decimals, or `-`.
pub fn secs(x: Option<f64>) -> String {
    match x {
        Some(x) if x >= 1.0 => format!("{x:.2} s"),
        Some(x) if x >= 1e-3 => format!("{:.2} ms", x * 1e3),
        Some(x) => format!("{:.1} µs", x * 1e6),
        None => "-".to_string(),
    }
}

/// `mean ± half` in the unit of the mean, both with the same decimals, so
/// one cell never mixes units (`4.96 ± 0.26 ms`, not `4.96 ms ± 261.9 µs`).
pub fn secs_pm(mean: f64, half: f64) -> String {
    let (per, name) = time_unit(mean);
    let (m, h) = (mean / per, half / per);
    let d = decimals3(m);
    format!("{m:.d$} ± {h:.d$} {name}")
}

/// A unit to show times up to `max` seconds in: `(seconds per unit, name)`.
pub fn time_unit(max: f64) -> (f64, &'static str) {
    if max >= 1.0 {
        (1.0, "s")
    } else if max >= 1e-3 {
        (1e-3, "ms")
    } else {
        (1e-6, "µs")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits_and_no_long_zeros() {
        assert_eq!(sig3(1234.5), "1234");
        assert_eq!(sig3(45.66), "45.7");
        assert_eq!(sig3(4.566), "4.57");
        assert_eq!(sig3(0.456), "0.46");
        assert_eq!(sig3(0.00048), "<0.01");
        assert_eq!(sig3(0.0), "0");
        assert_eq!(sig3_pm(4.96, Some(0.2619)), "4.96 ± 0.26");
        assert_eq!(sig3_pm(496.0, None), "496 ±?");
    }

    #[test]
    fn auto_picks_gib_or_mib_and_fixed_units_stay() {
        assert_eq!(ThroughputUnit::Auto.resolve(2e9), ThroughputUnit::GibPerSec);
        assert_eq!(ThroughputUnit::Auto.resolve(5e8), ThroughputUnit::MibPerSec);
        assert_eq!(
            ThroughputUnit::GbPerSec.resolve(5e8),
            ThroughputUnit::GbPerSec
        );
        assert_eq!(ThroughputUnit::MbPerSec.bytes_per_sec(), 1e6);
        assert_eq!(TimeUnit::for_max(4.96e6), TimeUnit::Ms);
        assert_eq!(TimeUnit::for_max(3.1e9), TimeUnit::S);
        assert_eq!(TimeUnit::for_max(480.0), TimeUnit::Us);
    }

    #[test]
    fn percentages_and_sizes_read_as_people_write_them() {
        assert_eq!(percent(0.031), "+3.1%");
        assert_eq!(percent(-0.12), "−12%");
        assert_eq!(percent(-0.0001), "+0.0%");
        assert_eq!(human_bytes(25_276_510_208), "23.5 GiB");
        assert_eq!(human_bytes(512), "512 B");
    }

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

    #[test]
    fn seconds_take_the_unit_of_their_size_and_a_spread_the_unit_of_its_mean() {
        assert_eq!(secs(Some(2.5)), "2.50 s");
        assert_eq!(secs(Some(0.0042)), "4.20 ms");
        assert_eq!(secs(Some(0.00042)), "420.0 µs");
        assert_eq!(secs(None), "-");
        assert_eq!(secs_pm(0.00496, 0.000262), "4.96 ± 0.26 ms");
        assert_eq!(secs_pm(12.0, 0.5), "12.0 ± 0.5 s");
        assert_eq!(time_unit(0.5), (1e-3, "ms"));
        assert_eq!(time_unit(2.0), (1.0, "s"));
        assert_eq!(time_unit(1e-4), (1e-6, "µs"));
    }
}
