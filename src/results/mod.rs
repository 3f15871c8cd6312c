//! Results as plain data: what one trial measured ([`Sample`], with the
//! child's [`ChildReport`]), the trials that failed ([`TrialFailure`]), what
//! a run produced before any statistics ([`RawResults`]), the run-wide
//! [`Settings`], and the results as the reports and exports read them
//! ([`RunResults`]: each case with its [`CaseSummary`], each paired
//! comparison, the run-wide statistics). Nothing here measures or
//! computes: [`crate::analysis`] fills the summaries in.
mod access;
mod case_summary;
pub mod claim;
pub mod flat;
mod interference;
mod latency;
mod precision;
mod profile;
mod profile_cost;
mod raw;
mod run_results;
mod sample;
mod settings;
mod short_trial;
mod spread;

pub use access::{FootprintSummary, TimelineMean};
pub use case_summary::{CaseSummary, PerMib};
pub use interference::CaseInterference;
pub use latency::LatencySummary;
pub use precision::{GroupPrecision, StoppedBy};
pub use profile::{CategoryShare, ProfileSummary};
pub use profile_cost::{PooledCost, ProfileCost, RunCost, TargetVerdict};
pub use raw::RawResults;
pub use run_results::{CaseResult, ComparisonResult, RunResults, StatisticsReport};
pub use sample::{ChildReport, ProcStat, Sample, SetupFaults, TrialFailure};
pub use settings::{mode_line, InterferenceSettings, ProfileSettings, Reproduction, Settings};
pub use short_trial::ShortTrial;
pub use spread::Spread;
