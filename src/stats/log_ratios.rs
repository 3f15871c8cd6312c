//! One comparison's paired log ratios `ln(baseline_i / other_i)` summed up:
//! their count, mean and sd, the CI half-width at any level and the paired
//! t-test's two-sided p-value. The stopping rule, the FDR adjustment and the
//! A/A calibration are all built on it.
use statrs::distribution::{ContinuousCDF, StudentsT};

use super::moments::{mean, sample_sd};

/// The `p` quantile of Student's t with `df` degrees of freedom
/// (`df > 0`, `0 < p < 1`); e.g. `t_quantile(0.975, 4.0) ≈ 2.776445`.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df)
        .expect("df > 0 is a valid parameter")
        .inverse_cdf(p)
}

/// Two-sided p-value of a t statistic with `df` degrees of freedom.
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    if t.is_infinite() {
        return 0.0;
    }
    let dist = StudentsT::new(0.0, 1.0, df).expect("df > 0 is a valid parameter");
    (2.0 * dist.cdf(-t.abs())).min(1.0)
}

/// Mean, sd and count of one comparison's paired log ratios.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogRatios {
    /// Number of pairs.
    pub n: usize,
    /// Mean log ratio.
    pub mean: f64,
    /// Sample sd of the log ratios.
    pub sd: f64,
}

impl LogRatios {
    /// `None` with fewer than 2 values or any non-finite value.
    pub fn of(logs: &[f64]) -> Option<LogRatios> {
        if logs.len() < 2 || logs.iter().any(|l| !l.is_finite()) {
            return None;
        }
        let m = mean(logs);
        Some(LogRatios {
            n: logs.len(),
            mean: m,
            sd: sample_sd(logs, m),
        })
    }

    /// Standard error of the mean log ratio.
    pub fn se(&self) -> f64 {
        self.sd / (self.n as f64).sqrt()
    }

    /// Degrees of freedom, `n - 1`.
    pub fn df(&self) -> f64 {
        (self.n - 1) as f64
    }

    /// Half-width, in log terms, of the two-sided CI at `level` (e.g. 0.95).
    pub fn half_width(&self, level: f64) -> f64 {
        t_quantile(0.5 + level / 2.0, self.df()) * self.se()
    }

    /// Two-sided p-value of the paired t-test (H0: mean log ratio 0). All
    /// values equal: 0 when they are not 0, else 1.
    pub fn p_value(&self) -> f64 {
        if self.se() == 0.0 {
            return if self.mean == 0.0 { 1.0 } else { 0.0 };
        }
        t_two_sided_p(self.mean / self.se(), self.df())
    }

    /// Two-sided p-value of the paired t-test against the nearer edge of a
    /// margin of indifference `±margin_ln` (log terms; `ln(1.05)` for ±5%):
    /// the mean's distance beyond the edge over its standard error. It is
    /// below 0.05 exactly when the 95% CI lies wholly beyond the edge, and
    /// 1 when the mean lies inside the margin. With a margin of 0 it is
    /// [`LogRatios::p_value`].
    pub fn p_value_beyond(&self, margin_ln: f64) -> f64 {
        let margin_ln = margin_ln.max(0.0);
        let beyond = self.mean.abs() - margin_ln;
        if beyond <= 0.0 && margin_ln > 0.0 {
            return 1.0;
        }
        if self.se() == 0.0 {
            return if beyond > 0.0 { 0.0 } else { 1.0 };
        }
        t_two_sided_p(beyond / self.se(), self.df())
    }
}

/// `ln(b / o)` for each pair of positive times.
pub fn log_ratios(baseline: &[f64], other: &[f64]) -> Vec<f64> {
    baseline
        .iter()
        .zip(other)
        .map(|(b, o)| b.ln() - o.ln())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_tables() {
        assert!((t_quantile(0.975, 4.0) - 2.776_445).abs() < 1e-5);
        assert!((t_quantile(0.95, 4.0) - 2.131_847).abs() < 1e-5);
        assert!((t_quantile(0.975, 2.0) - 4.302_653).abs() < 1e-5);
    }

    #[test]
    fn p_value_at_the_critical_t_is_alpha() {
        let t = t_quantile(0.975, 9.0);
        assert!((t_two_sided_p(t, 9.0) - 0.05).abs() < 1e-9);
        assert_eq!(t_two_sided_p(0.0, 9.0), 1.0);
        assert_eq!(t_two_sided_p(f64::INFINITY, 9.0), 0.0);
    }

    #[test]
    fn a_margin_moves_the_null_to_its_edge() {
        let l = LogRatios::of(&[0.10, 0.12, 0.09, 0.11, 0.13]).unwrap();
        assert_eq!(l.p_value_beyond(0.0), l.p_value());
        // The 95% CI's lower end in log terms: beyond it, p is above 0.05;
        // below it, under.
        let low = l.mean - l.half_width(0.95);
        assert!((l.p_value_beyond(low) - 0.05).abs() < 1e-9);
        assert!(l.p_value_beyond(low * 0.9) < 0.05);
        assert!(l.p_value_beyond(low * 1.1) > 0.05);
        // A mean inside the margin can never be called.
        assert_eq!(l.p_value_beyond(0.2), 1.0);
        // Symmetric: the same data the other way round.
        let neg = LogRatios::of(&[-0.10, -0.12, -0.09, -0.11, -0.13]).unwrap();
        assert!((neg.p_value_beyond(low) - 0.05).abs() < 1e-9);
    }

    #[test]
    fn students_sleep_data() {
        // R: t.test(extra ~ group, data = sleep, paired = TRUE):
        // t = -4.0621, df = 9, p-value = 0.002833.
        let d = [1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4];
        let p = LogRatios::of(&d).unwrap().p_value();
        assert!((p - 0.002_833).abs() < 5e-7, "{p}");
    }

    #[test]
    fn the_95_percent_half_width_is_the_compare_ci() {
        // compare.rs's hand example: ratios 1.1, 1.2, 0.9 give the 95% CI
        // (0.7341255, 1.5279435).
        let l = LogRatios::of(&log_ratios(&[1.1, 2.4, 0.9], &[1.0, 2.0, 1.0])).unwrap();
        let h = l.half_width(0.95);
        assert!(((l.mean - h).exp() - 0.734_125_5).abs() < 1e-6);
        assert!(((l.mean + h).exp() - 1.527_943_5).abs() < 1e-6);
        assert!(LogRatios::of(&[0.1]).is_none());
        assert!(LogRatios::of(&[0.1, f64::NAN]).is_none());
        assert_eq!(LogRatios::of(&[0.5, 0.5]).unwrap().p_value(), 0.0);
        assert_eq!(LogRatios::of(&[0.0, 0.0]).unwrap().p_value(), 1.0);
    }
}
