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

pub mod cache;
pub mod claims;
pub mod dataset;
pub mod disk_space;
pub mod error;
pub mod image;
pub mod journal;
pub mod latency;
pub mod measure;
pub mod memory_budget;
pub mod method;
pub mod pattern;
pub mod plan;
pub mod preflight;
pub mod procs;
pub mod report;
pub mod results;
pub mod runner;
pub mod sample;
pub mod scratch;
pub mod size;
pub mod stats;
pub mod threads;
pub mod timed;
pub mod timeline;
pub mod trial;
pub mod validate;
pub mod workload;
