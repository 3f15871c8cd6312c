//! The run's results assembled from its samples and cases: per-case
//! summaries, paired comparisons under the plan's metric, interference and
//! busy-machine rules, profiles, latency, spread, the precision stopping
//! rule, rankings, maps and comparisons across runs. Every number comes
//! from the pure math of [`crate::stats`]; what this part adds is knowing
//! which samples, cases and plan settings each statistic is taken over.
//! Nothing here does I/O or measures anything.

pub mod access;
pub mod across;
pub mod busy;
pub mod calibrate;
pub mod calibrate_until_shown;
pub mod case_summary;
pub mod interference;
pub mod latency;
pub mod map2_results;
pub mod map_results;
mod paired_costs;
pub mod profile;
pub mod profile_cost;
pub mod ranking;
pub mod run_results;
pub mod settle_rule;
pub mod short_trials;
pub mod spread;
pub mod stopping;
