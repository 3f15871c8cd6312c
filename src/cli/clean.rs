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

/// Removes the generated files, journals and scratch files of the data
/// directory, and the cgroups a killed faultline left behind.
pub fn execute(args: &CleanArgs) -> anyhow::Result<ExitCode> {
    let dir = session::data_dir(args.data_dir.clone());
    if std::fs::symlink_metadata(&dir).is_err() {
        println!(
            "0 file(s) removed from {} (it does not exist)",
            dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    // The same checks as a run's (a real directory of this user's, not a
    // symbolic link), then the lock no run may hold while clean works.
    faultline::files::dataset::ensure_private_dir(&dir)?;
    let _lock = faultline::files::locks::lock_data_dir_exclusive(&dir)?;
    let removed = clean(&dir, &|path| journal::read(path).is_ok())?;
    for path in &removed {
        println!("removed {}", path.display());
    }
    println!("{} file(s) removed from {}", removed.len(), dir.display());
    for cgroup in cgroup::clean_stale() {
        println!("removed stale cgroup {}", cgroup.display());
    }
    Ok(ExitCode::SUCCESS)
}
