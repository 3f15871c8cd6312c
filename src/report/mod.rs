//! Reports: everything faultline shows or writes about results, and nothing
//! that measures. Every function here only reads results ([`crate::results::RunResults`],
//! or a map's or an advice's): no statistics are computed here.
//!
//! - [`export`]: the files the user names (JSON, CSV, Markdown, HTML), each
//!   written atomically;
//! - [`terminal`]: the text printed to the terminal: the fitted table, the
//!   short verdict lines, runs side by side, the final line of a failed run;
//! - [`plot`]: the plots (SVG and PNG) and flame graphs;
//! - [`verdict`]: each comparison in one full sentence, with the counters
//!   behind it and the rule that explains it (the exports and `--verbose`);
//! - [`sections`]: the sections every output shares (access, spread,
//!   profile, statistics lines);
//! - the outputs of other subcommands: [`advise`], [`calibration`], [`map`];
//! - shared pieces: [`rows`] (the per-case rows), [`units`] (units and
//!   number formatting), [`claims`], [`text_table`], [`row_limit`], the
//!   groups and escaping.

pub mod advise;
pub mod calibration;
pub mod claims;
mod escape;
pub mod export;
mod groups;
pub mod map;
pub mod plot;
pub mod row_limit;
pub mod rows;
pub mod sections;
pub mod terminal;
pub mod text_table;
pub mod units;
pub mod verdict;

pub use export::{read_json, write_json, Exports};
pub use plot::{plots, write_plots, Plot};
pub use rows::render_table;
pub use verdict::{failure_lines, verdict_lines, warning_lines};
