//! The text printed to the terminal: the table fitted to its width
//! ([`table`]), the short verdict lines ([`verdicts`]), runs side by side
//! ([`run_comparison`], [`fleet_matrix`]) and the line that ends a run in
//! which trials failed ([`failed`]). Every line is wrapped, never cut.

pub mod failed;
pub mod fleet_matrix;
pub mod run_comparison;
pub mod table;
pub mod verdicts;

pub use crate::console::{fit, width, wrap, wrap_hanging};
pub use table::{render_terminal_table, Layout, DEFAULT_WIDTH};
