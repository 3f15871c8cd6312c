//! Reports: the terminal table, verdict lines and the exports. Nothing here measures.
//!
//! Every function here only reads a [`RunResults`](crate::results::RunResults):
//! no statistics are computed and nothing is measured. The only I/O is in the
//! export writers, which replace their files atomically (see [`atomic`]), so
//! an interrupted run never leaves a torn export behind.

pub mod atomic;
pub mod csv;
mod fmt;
pub mod json;
pub mod markdown;
pub mod table;
pub mod verdict;

#[cfg(test)]
mod fixtures;

pub use self::csv::write_csv;
pub use json::{read_json, write_json};
pub use markdown::{render_markdown, write_markdown};
pub use table::render_table;
pub use verdict::{failure_lines, verdict_lines, warning_lines};
