//! What a run asks of its statistics beyond the cases: a precision target
//! with its budget (`--precision`, `--max-runs`, `--max-time`), how its
//! verdicts are adjusted for testing many comparisons at once (`--fdr`), and
//! how long a trial must at least last (`--min-trial-time`), and the
//! smallest difference a verdict calls (`--min-effect`).
use serde::{Deserialize, Serialize};

use crate::stats::fdr::Adjustment;

/// A precision target: alternating run pairs are added to a group until the
/// 95% CI of each of its paired ratios is within `±target`, or the budget
/// is spent.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Precision {
    /// Target half-width in ratio terms (0.02 for ±2%).
    pub target: f64,
    /// Most measured runs per case (the planned runs are the fewest).
    pub max_runs: u32,
    /// Most seconds of trials for the whole run, if limited; each group may
    /// use its share (see [`Precision::group_deadline_s`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_time_s: Option<f64>,
    /// `faultline map`'s points: also stop adding runs to a group once
    /// every one of its comparisons is decided at a level made stricter for
    /// the looks the rule takes (the stopping arithmetic says how); the
    /// verdict itself is still the run's, at its usual level.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub until_decided: bool,
}

impl Precision {
    /// Seconds from the start of the run until which group `group` (of
    /// `groups`) may add runs: an equal share of the budget per group, and
    /// time a group left unused goes to the groups after it.
    pub fn group_deadline_s(&self, group: usize, groups: usize) -> Option<f64> {
        self.max_time_s
            .map(|t| t * (group + 1) as f64 / groups.max(1) as f64)
    }
}

/// The run-wide statistical settings: precision target, adjustment,
/// shortest trial.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Statistics {
    /// `--precision` with its budget; absent: the planned runs only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<Precision>,
    /// How the verdicts are adjusted across the run's comparisons.
    #[serde(default)]
    pub adjustment: Adjustment,
    /// `--min-trial-time`, ns: a warm read trial repeats its pass until
    /// setup + loop + teardown add up to at least this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_trial_ns: Option<u64>,
    /// `--min-effect`: the smallest difference a verdict calls (0.05 for
    /// ±5%); absent: the precision target, or 0 without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_effect: Option<f64>,
}

impl Statistics {
    /// The smallest difference a verdict calls: `--min-effect`, else the
    /// precision target (an effect below the precision asked for is not
    /// told apart from noise), else 0.
    pub fn min_effect(&self) -> f64 {
        self.min_effect
            .or(self.precision.map(|p| p.target))
            .unwrap_or(0.0)
    }
}

impl Statistics {
    /// The rules a run's verdicts follow, in words: how many runs (`runs`
    /// fixed by --runs, or a start with more added until the precision
    /// target), the shortest warm trial, the smallest effect called, and the
    /// interference rule.
    pub fn rules_words(&self, runs: u32) -> String {
        let pct = |f: f64| {
            let p = f * 100.0;
            if p < 1.0 {
                format!("±{p:.2}%")
            } else {
                format!("±{p:.1}%")
            }
        };
        let how = match &self.precision {
            Some(p) => format!(
                "{runs} runs per case to start, more until each comparison's 95% CI is within {}{} \
                 (at most {} per case{})",
                pct(p.target),
                if p.until_decided {
                    " or its verdict is decided"
                } else {
                    ""
                },
                p.max_runs,
                p.max_time_s
                    .map(|t| format!(", {t:.0} s in all"))
                    .unwrap_or_default()
            ),
            None => format!("{runs} runs per case (--runs; no runs added)"),
        };
        let effect = match self.min_effect() {
            e if e > 0.0 => format!("differences within {} are no difference", pct(e)),
            _ => "any difference the CI shows is called".to_string(),
        };
        let passes = match self.min_trial_ns {
            Some(ns) => format!(
                "; a warm read trial repeats its pass until its loops take {} ms",
                milliseconds(ns)
            ),
            None => String::new(),
        };
        format!(
            "rules: {how}{passes}; {effect}; decided from clean pairs when trials were \
             interfered with, else unsettled"
        )
    }
}

/// `ns` in milliseconds, to a tenth, without a trailing `.0`: `40`, `1.5`.
fn milliseconds(ns: u64) -> String {
    let text = format!("{:.1}", ns as f64 / 1e6);
    text.strip_suffix(".0").unwrap_or(&text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_say_the_shortest_warm_trial_when_there_is_one() {
        let mut stats = Statistics::default();
        assert!(!stats.rules_words(5).contains("repeats its pass"));
        stats.min_trial_ns = Some(40_000_000);
        assert!(stats
            .rules_words(5)
            .contains("a warm read trial repeats its pass until its loops take 40 ms"));
        stats.min_trial_ns = Some(1_500_000);
        assert!(stats.rules_words(5).contains("take 1.5 ms"));
    }

    #[test]
    fn each_group_gets_its_share_of_the_time() {
        let p = Precision {
            target: 0.02,
            max_runs: 50,
            max_time_s: Some(40.0),
            until_decided: false,
        };
        assert_eq!(p.group_deadline_s(0, 4), Some(10.0));
        assert_eq!(p.group_deadline_s(3, 4), Some(40.0));
        let unlimited = Precision {
            max_time_s: None,
            ..p
        };
        assert_eq!(unlimited.group_deadline_s(0, 4), None);
        let mut stats = Statistics::default();
        assert_eq!(stats.min_effect(), 0.0);
        stats.precision = Some(p);
        assert_eq!(stats.min_effect(), 0.02);
        stats.min_effect = Some(0.0);
        assert_eq!(stats.min_effect(), 0.0);
        assert_eq!(
            serde_json::to_string(&Adjustment::BenjaminiHochberg).unwrap(),
            "\"bh\""
        );
    }
}
