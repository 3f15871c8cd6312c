//! Results as plain data: what one trial measured ([`Sample`], with the
//! child's [`ChildReport`]), the trials that failed ([`TrialFailure`]), what
//! a run produced before any statistics ([`RawResults`]), and the run-wide
//! [`Settings`]. Nothing here measures or computes.
pub mod claim;
pub mod flat;
mod raw;
mod sample;
mod settings;

pub use raw::RawResults;
pub use sample::{ChildReport, ProcStat, Sample, SetupFaults, TrialFailure};
pub use settings::{mode_line, InterferenceSettings, ProfileSettings, Reproduction, Settings};
