//! The text `faultline calibrate` prints: the A/A noise floor and the
//! false-verdict rates.
use crate::plan::precision::Adjustment;
use crate::stats::calibrate::Calibration;

/// The most false verdicts per comparison `faultline calibrate` accepts.
pub const TARGET_FALSE_RATE: f64 = 0.05;

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The calibration in lines; `adjustment` is the one the run's settings
/// use (the "current settings" verdict).
pub fn calibration_lines(c: &Calibration, adjustment: Adjustment) -> Vec<String> {
    let current = c.rate(adjustment).per_comparison;
    vec![
        format!(
            "A/A: {} comparisons of {:.1} pairs on average, in {} families",
            c.comparisons, c.mean_pairs, c.families
        ),
        format!(
            "noise floor: ±{} (95th percentile of |ratio - 1| over A/A comparisons whose true ratio is 1); \
             a smaller real difference cannot be told from noise at these settings",
            pct(c.noise_floor)
        ),
        format!(
            "median 95% CI half-width: ±{}; sd of one pair's log ratio: {}; bias (mean A/A log ratio): {:+.2}%",
            pct(c.median_half_width),
            pct(c.pair_sd),
            c.mean_log_ratio * 100.0
        ),
        format!(
            "false verdicts per comparison: raw {} · Holm {} · Benjamini-Hochberg {}",
            pct(c.raw.per_comparison),
            pct(c.holm.per_comparison),
            pct(c.bh.per_comparison)
        ),
        format!(
            "families with any false verdict: raw {} · Holm {} · Benjamini-Hochberg {}",
            pct(c.raw.per_family),
            pct(c.holm.per_family),
            pct(c.bh.per_family)
        ),
        format!(
            "at the current settings ({}): {} false verdicts per comparison, {} the {} target",
            adjustment.name(),
            pct(current),
            if current <= TARGET_FALSE_RATE { "within" } else { "ABOVE" },
            pct(TARGET_FALSE_RATE)
        ),
    ]
}
