//! Statistics over samples: summaries, outliers and paired comparisons.
//! Nothing here does I/O or measures anything.

pub mod access;
pub mod across;
pub mod analysis;
pub mod busy;
pub mod calibrate;
pub mod compare;
pub mod crossover;
pub mod crossover2d;
pub mod decided;
pub mod dispersion;
pub mod effect;
pub mod fdr;
pub mod interference;
pub mod latency;
pub mod log_ratios;
pub mod map2_results;
pub mod map_results;
pub mod moments;
pub mod outliers;
mod paired_costs;
pub mod power;
pub mod profile;
pub mod profile_cost;
pub mod ranking;
pub mod run_results;
pub mod settle_rule;
pub mod short_trials;
pub mod spread;
pub mod stopping;
pub mod summary;
pub mod trend;

pub use compare::{paired_ratio, RatioEstimate, Verdict};
pub use outliers::mad_outliers;
pub use run_results::{CaseResult, ComparisonResult, RunResults};
pub use summary::{summarize, Summary};
