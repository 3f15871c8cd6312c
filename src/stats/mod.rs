//! Statistics over samples: summaries, outliers and paired comparisons.
//! Nothing here does I/O or measures anything.

pub mod analysis;
pub mod compare;
pub mod latency;
pub mod outliers;
pub mod spread;
pub mod summary;

pub use compare::{paired_ratio, RatioEstimate, Verdict};
pub use outliers::mad_outliers;
pub use summary::{summarize, Summary};
