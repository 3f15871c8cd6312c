//! The flags of `faultline run` that choose how precise its verdicts are:
//! `--precision` with its budget (`--max-runs`, `--max-time`), `--fdr`, and
//! `--min-trial-time`; and the default precision of the main job.
use clap::Args;

use faultline::plan::precision::{Precision, Statistics};
use faultline::plan::Plan;
use faultline::stats::fdr::Adjustment;

/// Precision of every run given no --runs (and no --precision): ±5%, at most
/// 20 runs per case and 30 s, and a group stops adding runs once every one
/// of its comparisons is decided (`stats::decided`: its CI, at a level made
/// stricter for the looks the rule takes, lies beyond or inside the ±5%
/// band, or no run up to 20 could change that). One rule set for every run:
/// the default comparison and a sweep of patterns and blocks alike. An
/// explicit `--precision` asks for the CI's width and stops on that alone.
pub const DEFAULT_PRECISION: Precision = Precision {
    target: 0.05,
    max_runs: 20,
    max_time_s: Some(30.0),
    until_decided: true,
};

/// The shortest warm trial of every run given no --runs (and no
/// --min-trial-time): a warm or as-is read trial on one thread repeats its
/// pass over the file until its passes take 40 ms, twice the 20 ms under
/// which a trial is flagged as too short to time well
/// (`analysis::short_trials`). The main job's 128 MiB file takes 11–25 ms a
/// pass warm here (docs/performance.md): one pass would be flagged and
/// noisy, and a file large enough for one pass would spend the run's time
/// on the cold random case, which reads every 4 KiB block from the device.
pub const DEFAULT_MIN_TRIAL_S: f64 = 0.04;

/// Most runs per case under --precision when --max-runs is not given.
pub const DEFAULT_MAX_RUNS: u32 = 30;

/// The smallest difference a run's verdicts call when no --min-effect is
/// given: ±5%, with or without --runs (a smaller difference is within noise).
/// It is the claims' no-effect margin, so a run and a study's claims call
/// the same differences "no difference".
pub const DEFAULT_MIN_EFFECT: f64 = faultline::stats::effect::NO_EFFECT_MARGIN;
/// How a new run's verdicts are adjusted without --fdr: Holm, which keeps
/// the chance of any false verdict in a run (its family) at most 5%
/// whatever the other comparisons show. Benjamini–Hochberg lets it rise
/// above 5% beside comparisons that truly differ (docs/precision.md,
/// `faultline calibrate`).
pub const DEFAULT_ADJUSTMENT: Adjustment = Adjustment::Holm;

/// How precise the verdicts must be, and how they are adjusted.
#[derive(Debug, Default, Args)]
#[command(next_help_heading = "Statistics")]
pub struct PrecisionArgs {
    /// Add alternating runs to each group until every comparison's 95% CI is within ±P
    /// (e.g. 2%), or --max-runs or --max-time is reached [without --runs: 5%, 20 runs, 30 s, or
    /// until every verdict of the group is decided].
    #[arg(long, value_name = "P", value_parser = parse_precision)]
    pub precision: Option<f64>,
    /// With --precision: most measured runs per case [default: 30].
    #[arg(long, value_name = "N", requires = "precision", value_parser = clap::value_parser!(u32).range(2..=10_000))]
    pub max_runs: Option<u32>,
    /// With --precision: most time for the whole run's trials (e.g. 90s, 5m); each group gets an
    /// equal share, and what one leaves goes to the next.
    #[arg(long, value_name = "TIME", requires = "precision", value_parser = parse_duration_s)]
    pub max_time: Option<f64>,
    /// How verdicts are adjusted across the run's comparisons: holm (family-wise error rate:
    /// any false verdict in the run at most 5%), bh (Benjamini-Hochberg, false discovery rate)
    /// or none [default: holm; with --resume: the journal's].
    #[arg(long, value_enum)]
    pub fdr: Option<Adjustment>,
    /// Repeat the pass over the file (setup, loop and teardown) inside one trial until its main
    /// loops add up to at least this long (e.g. 20ms), or its passes to four times it; warm and
    /// as-is read trials only; `off`: one pass a trial [without --runs: 40ms].
    #[arg(long, value_name = "TIME|off", value_parser = parse_min_trial_or_off)]
    pub min_trial_time: Option<MinTrial>,
    /// The smallest difference a verdict calls (e.g. 5%; 0 calls any difference the CI shows):
    /// "faster" or "slower" only when the 95% CI lies wholly beyond ×/÷ (1 + P) [default: 5%].
    #[arg(long, value_name = "P", value_parser = parse_min_effect)]
    pub min_effect: Option<f64>,
}

impl PrecisionArgs {
    /// The statistics settings; `adaptive` says the run was given no --runs
    /// (and is not a resume), so it gets [`DEFAULT_PRECISION`] and
    /// [`DEFAULT_MIN_TRIAL_S`]. Every run calls differences from
    /// [`DEFAULT_MIN_EFFECT`] unless told otherwise.
    pub fn statistics(&self, adaptive: bool) -> Statistics {
        let precision = match self.precision {
            Some(target) => Some(Precision {
                target,
                max_runs: self.max_runs.unwrap_or(DEFAULT_MAX_RUNS),
                max_time_s: self.max_time,
                until_decided: false,
            }),
            None if adaptive => Some(DEFAULT_PRECISION),
            None => None,
        };
        Statistics {
            precision,
            adjustment: self.fdr.unwrap_or(DEFAULT_ADJUSTMENT),
            min_trial_ns: self
                .min_trial_time
                .map_or(adaptive.then_some(DEFAULT_MIN_TRIAL_S), |m| m.0)
                .map(|s| (s * 1e9) as u64),
            // --min-effect, else a --precision target (an effect below the
            // precision asked for is not told from noise), else ±5%.
            min_effect: Some(
                self.min_effect
                    .or(self.precision)
                    .unwrap_or(DEFAULT_MIN_EFFECT),
            ),
        }
    }

    /// Checks the settings against `plan` and gives its cases the shortest
    /// trial time; returns a note about the cases it does not apply to.
    pub fn apply(
        &self,
        statistics: &Statistics,
        plan: &mut Plan,
    ) -> anyhow::Result<Option<String>> {
        if let Some(p) = &statistics.precision {
            if p.max_runs < plan.runs {
                return Err(faultline::error::Error::Plan(format!(
                    "--max-runs {} is below the {} planned runs per case (--runs); give at least {}",
                    p.max_runs, plan.runs, plan.runs
                ))
                .into());
            }
        }
        let Some(ns) = statistics.min_trial_ns else {
            return Ok(None);
        };
        let mut skipped = 0;
        for case in &mut plan.cases {
            if case.repeats_passes() {
                case.min_trial_ns = Some(ns);
            } else {
                skipped += 1;
            }
        }
        // The default applies where it can without a word; a --min-trial-time
        // the user gave says which cases it cannot apply to.
        Ok(
            (skipped > 0 && matches!(self.min_trial_time, Some(MinTrial(Some(_))))).then(|| {
                format!(
                    "--min-trial-time applies to warm and as-is read trials on one thread; \
                 {skipped} of {} case(s) (cold, write, threaded, timed or scale) run one pass",
                    plan.cases.len()
                )
            }),
        )
    }
}

/// `2%` or `0.02`: a precision between 0 and 100% (exclusive).
pub(crate) fn parse_precision(s: &str) -> Result<f64, String> {
    let (number, scale) = match s.trim().strip_suffix('%') {
        Some(n) => (n, 100.0),
        None => (s.trim(), 1.0),
    };
    let value =
        number.trim().parse::<f64>().map_err(|_| {
            format!("'{s}' is not a precision: give a percentage such as 2% (or 0.02)")
        })? / scale;
    if value.is_finite() && value > 0.0 && value < 1.0 {
        Ok(value)
    } else {
        Err(format!(
            "{s} is out of range: give a precision above 0% and below 100%"
        ))
    }
}

/// `5%` or `0.05`: a smallest effect, from 0 (any difference) to below 100%.
pub(crate) fn parse_min_effect(s: &str) -> Result<f64, String> {
    let (number, scale) = match s.trim().strip_suffix('%') {
        Some(n) => (n, 100.0),
        None => (s.trim(), 1.0),
    };
    let value = number.trim().parse::<f64>().map_err(|_| {
        format!("'{s}' is not a smallest effect: give a percentage such as 5% (or 0.05)")
    })? / scale;
    if value.is_finite() && (0.0..1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!(
            "{s} is out of range: give a smallest effect from 0% to below 100%"
        ))
    }
}

/// `90`, `90s`, `500ms`, `5m` or `1h`: seconds, above 0.
pub(crate) fn parse_duration_s(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let (number, unit) = [("ms", 1e-3), ("s", 1.0), ("m", 60.0), ("h", 3600.0)]
        .iter()
        .find_map(|(suffix, unit)| t.strip_suffix(suffix).map(|n| (n, *unit)))
        .unwrap_or((t, 1.0));
    let value = number
        .trim()
        .parse::<f64>()
        .map_err(|_| format!("'{s}' is not a time: give e.g. 500ms, 30s or 5m"))?
        * unit;
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(format!(
            "{s} is not a time above 0: give e.g. 500ms, 30s or 5m"
        ))
    }
}

/// A --min-trial-time: a time from 1 ms to 60 s.
pub fn parse_min_trial(s: &str) -> Result<f64, String> {
    let value = parse_duration_s(s)?;
    if (1e-3..=60.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{s} is out of range: give a time from 1ms to 60s"))
    }
}

/// `--min-trial-time`'s value: the shortest trial in seconds, or `None`
/// for `off` (one pass a trial). A type of its own: clap reads a field of
/// `Option<Option<T>>` as a flag whose value may be left out, not as a
/// value that may say "off".
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MinTrial(pub Option<f64>);

/// `20ms` (as [`parse_min_trial`]) or `off` (one pass a trial).
pub(crate) fn parse_min_trial_or_off(s: &str) -> Result<MinTrial, String> {
    if s.trim().eq_ignore_ascii_case("off") {
        return Ok(MinTrial(None));
    }
    parse_min_trial(s).map(|t| MinTrial(Some(t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_rules_give_warm_trials_40_ms_and_flags_win() {
        let ns = |args: &PrecisionArgs, adaptive| args.statistics(adaptive).min_trial_ns;
        let none = PrecisionArgs::default();
        assert_eq!(ns(&none, true), Some(40_000_000));
        assert_eq!(ns(&none, false), None, "--runs: one pass as asked");
        let given = PrecisionArgs {
            min_trial_time: Some(MinTrial(Some(0.02))),
            ..PrecisionArgs::default()
        };
        assert_eq!(ns(&given, true), Some(20_000_000));
        assert_eq!(ns(&given, false), Some(20_000_000));
        let off = PrecisionArgs {
            min_trial_time: Some(MinTrial(None)),
            ..PrecisionArgs::default()
        };
        assert_eq!(ns(&off, true), None, "off: one pass");
        assert_eq!(parse_min_trial_or_off("OFF"), Ok(MinTrial(None)));
        assert_eq!(parse_min_trial_or_off("40ms"), Ok(MinTrial(Some(0.04))));
        assert!(parse_min_trial_or_off("0.1ms").is_err());
    }

    #[test]
    fn precision_and_times_parse() {
        assert_eq!(parse_precision("2%"), Ok(0.02));
        assert_eq!(parse_precision("0.05"), Ok(0.05));
        assert!(parse_precision("0%").is_err());
        assert!(parse_precision("100%").is_err());
        assert!(parse_precision("two").is_err());
        assert_eq!(parse_duration_s("500ms"), Ok(0.5));
        assert_eq!(parse_duration_s("2m"), Ok(120.0));
        assert_eq!(parse_duration_s("30"), Ok(30.0));
        assert!(parse_duration_s("-1s").is_err());
        assert!(parse_min_trial("0.1ms").is_err());
        assert_eq!(parse_min_trial("20ms"), Ok(0.02));
        assert_eq!(parse_min_effect("5%"), Ok(0.05));
        assert_eq!(parse_min_effect("0"), Ok(0.0));
        for bad in ["100%", "-1%", "NaN", "inf", "five"] {
            assert!(parse_min_effect(bad).is_err(), "{bad}");
        }
    }
}
