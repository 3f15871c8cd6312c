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

/// The bytes of the regular files under `dir` (symbolic links not followed).
fn bytes_under(dir: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => bytes_under(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

/// Removes the generated files and file sets, stale journals (those no
/// running faultline holds) and scratch files of the data directory, and the cgroups a killed faultline left behind.
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
    // What was freed: the bytes of the data directory's files before and
    // after (no run can write there while clean holds the lock).
    let before = bytes_under(&dir);
    let removed = clean(&dir, &|path| journal::read(path).is_ok())?;
    let freed = before.saturating_sub(bytes_under(&dir));
    for path in &removed.files {
        println!("removed {}", path.display());
    }
    for set in &removed.sets {
        if set.dir_removed {
            println!(
                "removed the file set {} ({} file(s))",
                set.dir.display(),
                set.files
            );
        } else {
            println!(
                "removed {} file(s) of the file set {}; kept the directory: it holds files faultline did not make",
                set.files,
                set.dir.display()
            );
        }
    }
    let in_sets = match removed.sets.len() {
        0 => String::new(),
        n => format!(
            " ({} of them in {n} file set(s))",
            removed.file_count() - removed.files.len()
        ),
    };
    println!(
        "{} file(s) removed from {}{in_sets}, {} freed",
        removed.file_count(),
        dir.display(),
        faultline::size::format_size(freed)
    );
    for cgroup in cgroup::clean_stale() {
        println!("removed stale cgroup {}", cgroup.display());
    }
    Ok(ExitCode::SUCCESS)
}
