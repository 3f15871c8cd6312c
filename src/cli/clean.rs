//! `faultline clean`: removes the files faultline generated, and only those.
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use faultline::files::clean::clean;
use faultline::runner::{cgroup, journal};
use faultline::session;

/// Flags of `faultline clean`.
#[derive(Debug, Args)]
pub struct CleanArgs {
    /// faultline's data directory.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
}

/// Removes the generated files, stale journals (those no running faultline
/// holds) and scratch files of the data directory, and the cgroups a killed faultline left behind.
pub fn execute(args: &CleanArgs) -> anyhow::Result<ExitCode> {
    let dir = session::data_dir(args.data_dir.clone());
    // A journal a running faultline holds is not stale: it stays.
    let stale = |path: &std::path::Path| journal::read(path).is_ok() && !journal::in_use(path);
    let removed = clean(&dir, &stale)?;
    for path in &removed {
        println!("removed {}", path.display());
    }
    println!("{} file(s) removed from {}", removed.len(), dir.display());
    for cgroup in cgroup::clean_stale() {
        println!("removed stale cgroup {}", cgroup.display());
    }
    Ok(ExitCode::SUCCESS)
}
