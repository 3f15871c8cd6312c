//! The command line: clap types, one file per subcommand.
pub mod report;
pub mod reproduce;
mod run;

pub use run::*;
