//! Statistics over numbers: summaries, outliers, paired and unpaired ratios,
//! adjusted verdicts, effects, power, trends and crossovers. Pure math over
//! slices: nothing here knows a sample, a case or a plan, does I/O or
//! measures anything; [`crate::analysis`] applies it to a run's samples.

pub mod across;
pub mod compare;
pub mod crossover;
pub mod crossover2d;
pub mod decided;
pub mod dispersion;
pub mod effect;
pub mod fdr;
pub mod log_ratios;
pub mod moments;
pub mod outliers;
pub mod power;
pub mod summary;
pub mod trend;

pub use compare::{paired_ratio, RatioEstimate, Verdict};
pub use outliers::mad_outliers;
pub use summary::{summarize, Summary};
