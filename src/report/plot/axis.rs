//! The numbers along a chart's axis: its range padded around the values,
//! round ticks on a linear axis and decades (then finer steps) on a log
//! one, and short tick labels. Pure arithmetic, no drawing.
use super::AxisScale;

/// The range of `values`, padded by 5% (linear) or a factor (log) on each
/// side; a sensible default when there are no values or they are all equal.
pub(crate) fn padded_range(values: &[f64], scale: AxisScale) -> (f64, f64) {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    match scale {
        AxisScale::Linear => {
            if !(lo.is_finite() && hi.is_finite()) {
                return (0.0, 1.0);
            }
            let span = hi - lo;
            let pad = if span > 0.0 {
                span * 0.05
            } else {
                (hi.abs() * 0.1).max(1.0)
            };
            (lo - pad, hi + pad)
        }
        AxisScale::Log => {
            if !(lo.is_finite() && hi.is_finite() && lo > 0.0) {
                return (1.0, 10.0);
            }
            let factor = (hi / lo).powf(0.05).max(1.1);
            (lo / factor, hi * factor)
        }
    }
}

/// Tick positions for `[lo, hi]`: round steps of 1, 2, 2.5 or 5 times a
/// power of ten on a linear axis; on a log axis powers of ten, then 1-2-5 in
/// each decade, then finer, and round linear steps when the range spans too
/// little of a decade for any of those.
pub(crate) fn ticks(lo: f64, hi: f64, scale: AxisScale) -> Vec<f64> {
    match scale {
        AxisScale::Linear => linear_ticks(lo, hi, 6),
        AxisScale::Log => log_ticks(lo, hi),
    }
}

fn linear_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let span = hi - lo;
    if !(span.is_finite() && span > 0.0) {
        return vec![lo];
    }
    let raw = span / target as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let count = |step: f64| ((hi / step).floor() - (lo / step).ceil() + 1.0).max(0.0);
    // The round step whose tick count comes closest to the target.
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .min_by(|a, b| {
            let off = |s: f64| (count(s) - target as f64).abs();
            off(*a).total_cmp(&off(*b))
        })
        .unwrap_or(magnitude);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return linear_ticks(lo, hi, 6);
    }
    let in_range = |mantissas: &[f64]| -> Vec<f64> {
        let (first, last) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        (first..=last)
            .flat_map(|e| mantissas.iter().map(move |m| m * 10f64.powi(e)))
            .filter(|v| *v >= lo * (1.0 - 1e-12) && *v <= hi * (1.0 + 1e-12))
            .collect()
    };
    let decades = in_range(&[1.0]);
    if decades.len() > 10 {
        let every = decades.len().div_ceil(10);
        return decades.into_iter().step_by(every).collect();
    }
    if decades.len() >= 4 {
        return decades;
    }
    for mantissas in [&[1.0, 2.0, 5.0][..], &[1.0, 1.5, 2.0, 3.0, 5.0, 7.0]] {
        let t = in_range(mantissas);
        if (4..=12).contains(&t.len()) {
            return t;
        }
    }
    linear_ticks(lo, hi, 5)
}

/// A tick value as short text: `0`, `0.25`, `1.5`, `300`, `1e6`, `2.5e-4`.
pub(crate) fn tick_label(v: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let a = v.abs();
    if !(1e-3..1e6).contains(&a) {
        return format!("{v:e}");
    }
    let text = format!("{v:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_round() {
        assert_eq!(
            linear_ticks(0.0, 3.1, 6),
            vec![0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
        );
        assert_eq!(
            linear_ticks(0.0, 100.0, 6),
            vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
        );
        assert_eq!(linear_ticks(5.0, 5.0, 6), vec![5.0]);
    }

    #[test]
    fn log_ticks_use_decades_then_finer_steps() {
        assert_eq!(
            log_ticks(0.5, 20000.0),
            vec![1.0, 10.0, 100.0, 1000.0, 10000.0]
        );
        assert_eq!(log_ticks(0.4, 30.0), vec![0.5, 1.0, 2.0, 5.0, 10.0, 20.0]);
        // Within one decade: round linear steps.
        let narrow = log_ticks(0.9, 1.6);
        assert!(narrow.len() >= 3, "{narrow:?}");
        assert!(narrow.iter().all(|v| (0.9..=1.6).contains(v)), "{narrow:?}");
        // Forty decades: thinned to at most ten labels.
        assert!(log_ticks(1e-20, 1e20).len() <= 10);
    }

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(tick_label(0.0), "0");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(1.5), "1.5");
        assert_eq!(tick_label(300.0), "300");
        assert_eq!(tick_label(0.30000000000000004), "0.3");
        assert_eq!(tick_label(1e6), "1e6");
        assert_eq!(tick_label(2.5e-4), "2.5e-4");
    }

    #[test]
    fn ranges_pad_and_survive_degenerate_input() {
        assert_eq!(padded_range(&[], AxisScale::Linear), (0.0, 1.0));
        assert_eq!(padded_range(&[0.0, 10.0], AxisScale::Linear), (-0.5, 10.5));
        assert_eq!(padded_range(&[2.0, 2.0], AxisScale::Linear), (1.0, 3.0));
        let (lo, hi) = padded_range(&[1.0, 100.0], AxisScale::Log);
        assert!(lo < 1.0 && hi > 100.0);
        assert_eq!(padded_range(&[0.0, 1.0], AxisScale::Log), (1.0, 10.0));
    }
}
