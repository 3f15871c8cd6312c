//! Statistics over samples: summaries, outliers and paired comparisons.
//! Nothing here does I/O or measures anything.

pub mod analysis;
pub mod compare;
pub mod latency;
pub mod moments;
pub mod outliers;
pub mod profile;
pub mod run_results;
pub mod spread;
pub mod summary;

pub use compare::{paired_ratio, RatioEstimate, Verdict};
pub use outliers::mad_outliers;
pub use run_results::{CaseResult, ComparisonResult, RunResults};
pub use summary::{summarize, Summary};
