//! `faultline env`: the environment every number depends on.
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use faultline::files::dataset;
use faultline::measure::environment;
use faultline::session;

/// Flags of `faultline env`.
#[derive(Debug, Args)]
pub struct EnvArgs {
    /// Describe the file system and device of this file (default: the data directory).
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// faultline's data directory.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
}

/// Prints the environment, one setting a line.
pub fn execute(args: &EnvArgs) -> anyhow::Result<ExitCode> {
    let target = match &args.file {
        Some(f) => {
            dataset::user_file(f)?;
            f.clone()
        }
        None => {
            let dir = session::data_dir(args.data_dir.clone());
            if dir.exists() {
                dir
            } else {
                std::env::temp_dir()
            }
        }
    };
    let env = environment::capture(Some(&target));
    for (label, value) in env.describe() {
        println!("{label:<22} {value}");
    }
    Ok(ExitCode::SUCCESS)
}
