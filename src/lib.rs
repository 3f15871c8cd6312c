//! faultline: measures how bytes get from a file into a program, and explains
//! the difference between `read()`-style syscalls and `mmap()` with counters.
//!
//! Data flow (see the README):
//! `cli` flags --> [`plan::Plan`] (a list of [`plan::Case`]s) --> [`dataset`]
//! --> [`runner`] (cache state, one child process per trial, [`sample::Sample`]s)
//! --> [`stats`] (summaries, paired comparisons; no I/O)
//! --> [`report`] (table, JSON, CSV, Markdown; no measuring).
#![deny(missing_docs)]

pub mod cache;
pub mod dataset;
pub mod error;
pub mod journal;
pub mod latency;
pub mod measure;
pub mod method;
pub mod pattern;
pub mod plan;
pub mod preflight;
pub mod report;
pub mod results;
pub mod runner;
pub mod sample;
pub mod size;
pub mod stats;
pub mod trial;
pub mod validate;
pub mod workload;
