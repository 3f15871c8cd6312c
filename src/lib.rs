//! faultline: measures how bytes get from a file into a program, and explains
//! the difference between `read()`-style syscalls and `mmap()` with counters.
//!
//! Data flow (see the README):
//! `cli` flags --> [`plan::Plan`] (a list of [`plan::Case`]s) --> [`dataset`]
//! (and, for write methods, [`scratch`])
//! --> [`runner`] (cache state, one child process per trial, [`sample::Sample`]s)
//! --> [`stats`] (summaries, paired comparisons; no I/O)
//! --> [`report`] (table, JSON, CSV, Markdown; no measuring).
#![deny(missing_docs)]

/// Implements `Display` for enums that derive `clap::ValueEnum`: each value
/// prints as its command-line name (`mmap-copy`, `random-replace`, ...).
macro_rules! display_as_value_name {
    ($($t:ty),* $(,)?) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let value = clap::ValueEnum::to_possible_value(self).expect("no skipped variants");
                f.write_str(value.get_name())
            }
        }
    )*};
}

pub mod error;
pub mod files;
pub mod measure;
pub mod method;
pub mod pattern;
pub mod plan;
pub mod report;
pub mod results;
pub mod runner;
pub mod size;
pub mod stats;
pub mod studies;
pub mod system;
pub mod trial;
pub mod workload;

#[cfg(test)]
pub(crate) mod fixtures;
