//! Sweeping what killed faultline processes left: the atomic writer's
//! temporaries, scratch and probe files, private scratch directories and
//! run marks, recognised by the pid in their names ([`super::names`]) and
//! removed only when that process is gone. A leaf of `files/`: the atomic
//! writer, the scratch directory and `faultline clean` all call it.
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::names::{PREFIX, SUBDIR, TEMP_PREFIX};
use crate::error::{Error, Result};
use crate::system::current_uid;

/// The pid in the name of a file a faultline process makes for itself
/// (`.faultline-tmp-<pid>-…`, `faultline-fresh-<pid>-…`,
/// `faultline-overwrite-<pid>-…`, `.faultline-probe-<pid>`).
fn owner_pid(name: &str) -> Option<i32> {
    let rest = [
        TEMP_PREFIX,
        "faultline-fresh-",
        "faultline-overwrite-",
        ".faultline-probe-",
    ]
    .iter()
    .find_map(|p| name.strip_prefix(p))?;
    let digits: &str = rest.split('-').next()?;
    digits.parse().ok().filter(|&pid: &i32| pid > 0)
}

/// Whether process `pid` is another process's that is gone.
pub(super) fn is_killed(pid: i32) -> bool {
    pid != std::process::id() as i32 && is_gone(pid)
}

/// Whether the run of `pid` left its mark (`.faultline-active-<pid>`) in
/// `dir`: it did not end (a run removes its mark when it ends).
fn left_its_mark(dir: &Path, pid: i32) -> bool {
    fs::symlink_metadata(dir.join(format!("{}{pid}", super::locks::ACTIVE_PREFIX)))
        .is_ok_and(|m| m.is_file())
}

/// Removes, from `base` (a `--dir`), the private scratch directories
/// (`faultline-scratch-<pid>[-n]`) of runs that were killed: the process is
/// gone and its mark is still inside (a run that ended removed it, even with
/// `--keep`). Only faultline's files of that run, its mark and then the
/// directory, if empty, are removed. Returns the files removed.
pub fn remove_killed_scratch_dirs(base: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = fs::read_dir(base) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(PREFIX)
            .and_then(|n| n.strip_prefix("scratch-"))
            .and_then(|n| n.split('-').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        let dir = entry.path();
        let ours = fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir() && m.uid() == current_uid());
        if !ours || !is_killed(pid) || !left_its_mark(&dir, pid) {
            continue;
        }
        let mark = format!("{}{pid}", super::locks::ACTIVE_PREFIX);
        let of_that_run = |_: &Path, n: &str| n == mark || owner_pid(n) == Some(pid);
        let _ = remove_matching(&dir, &of_that_run, &mut removed);
        if fs::remove_dir(&dir).is_ok() {
            removed.push(dir);
        }
    }
    removed
}

/// Whether process `pid` is gone (kill(pid, 0) says ESRCH).
fn is_gone(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Removes, from `dir`, `dir/runs` and `dir/scratch`, the temporary,
/// probe and scratch files of faultline processes that are gone (killed
/// with SIGKILL, or by a crash, before they could remove them): regular
/// files of this user with one link whose name carries a pid that no
/// longer runs. Files of live processes (another run) are left alone.
/// Then the marks of those killed runs go too (a stale mark of a pid that
/// is gone: nobody holds it locked), quietly: they are bookkeeping, not
/// files of the user's. Returns what was removed (the marks not
/// included); a file that cannot be removed is left.
pub fn remove_leftovers(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let leftover = |_: &Path, name: &str| match owner_pid(name) {
        // A temporary file is never meant to outlive its process.
        Some(pid) if name.starts_with(TEMP_PREFIX) => is_killed(pid),
        // A scratch or probe file may have been kept (--keep) by a run that
        // ended: only a run that was killed leaves its mark behind.
        Some(pid) => is_killed(pid) && left_its_mark(dir, pid),
        None => false,
    };
    for d in [dir.to_path_buf(), dir.join("runs"), dir.join(SUBDIR)] {
        let _ = remove_matching(&d, &leftover, &mut removed);
    }
    removed.extend(remove_killed_runs_temporaries(dir));
    let stale_mark = |path: &Path, name: &str| {
        name.strip_prefix(super::locks::ACTIVE_PREFIX)
            .and_then(|pid| pid.parse::<i32>().ok())
            .is_some_and(|pid| is_killed(pid) && super::locks::is_stale_mark(path))
    };
    let _ = remove_matching(dir, &stale_mark, &mut Vec::new());
    removed
}

/// For each killed run that left its mark in `dir`, the atomic writer's
/// temporary files (`.faultline-tmp-<pid>-…`) it left in the directories
/// its mark lists (where it wrote its exports, outside the data
/// directory), removed. Returns what was removed.
fn remove_killed_runs_temporaries(dir: &Path) -> Vec<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let mut removed = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(super::locks::ACTIVE_PREFIX)
            .and_then(|pid| pid.parse::<i32>().ok())
        else {
            continue;
        };
        let path = entry.path();
        if !is_killed(pid) || !super::locks::is_stale_mark(&path) {
            continue;
        }
        let Ok(list) = crate::input::read_limited(&path, "run mark", 1 << 20) else {
            continue;
        };
        for line in list.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let out_dir = Path::new(std::ffi::OsStr::from_bytes(line));
            removed.extend(remove_temporaries_of_gone(out_dir, Some(pid)));
        }
    }
    removed
}

/// Removes from `dir` the atomic writer's temporary files
/// (`.faultline-tmp-<pid>-…`, this user's, one link) of processes that are
/// gone: of `pid` alone, or of any gone process when `None` (a temporary
/// never outlives its process). Returns what was removed.
pub fn remove_temporaries_of_gone(dir: &Path, pid: Option<i32>) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let temporary = |_: &Path, name: &str| {
        name.starts_with(TEMP_PREFIX)
            && owner_pid(name).is_some_and(|p| pid.is_none_or(|want| want == p) && is_killed(p))
    };
    let _ = remove_matching(dir, &temporary, &mut removed);
    removed
}

pub(super) fn remove_matching(
    dir: &Path,
    ours: &dyn Fn(&Path, &str) -> bool,
    removed: &mut Vec<PathBuf>,
) -> Result<()> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io("list", dir, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", dir, e))?;
        let path = entry.path();
        // A regular file of this user's with one link: never a directory,
        // a symlink, a device, or someone else's file.
        let owned = fs::symlink_metadata(&path)
            .is_ok_and(|m| m.is_file() && m.uid() == current_uid() && m.nlink() == 1);
        if owned && ours(&path, &entry.file_name().to_string_lossy()) {
            fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
            removed.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pid no process has (above Linux's largest pid_max).
    const GONE: i32 = (1 << 22) + 7;

    #[test]
    fn leftovers_of_killed_runs_go_and_kept_files_stay() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = dir.path().join(super::super::scratch::SUBDIR);
        fs::create_dir(&scratch).unwrap();
        let tmp = dir.path().join(format!("{TEMP_PREFIX}{GONE}-0-x.data"));
        let kept = scratch.join(format!("faultline-fresh-{}-case0.data", GONE + 1));
        let killed = scratch.join(format!("faultline-fresh-{GONE}-case0.data"));
        for f in [&tmp, &kept, &killed] {
            fs::write(f, b"x").unwrap();
        }
        // The run of GONE was killed: its mark is still there.
        let mark = dir
            .path()
            .join(format!("{}{GONE}", super::super::locks::ACTIVE_PREFIX));
        fs::write(&mark, b"").unwrap();
        let removed = remove_leftovers(dir.path());
        assert!(!tmp.exists() && !killed.exists(), "{removed:?}");
        assert!(
            kept.exists(),
            "a run that ended with --keep keeps its files"
        );
        assert_eq!(removed.len(), 2, "{removed:?}");
        assert!(!mark.exists(), "the killed run's mark goes after its files");
        // A mark held locked (a live run's) stays, as does this run's own.
        let live = dir.path().join(format!(
            "{}{}",
            super::super::locks::ACTIVE_PREFIX,
            GONE + 2
        ));
        fs::write(&live, b"").unwrap();
        let holder = fs::File::open(&live).unwrap();
        // SAFETY: flock on a descriptor this test owns.
        assert_eq!(
            unsafe {
                libc::flock(
                    std::os::unix::io::AsRawFd::as_raw_fd(&holder),
                    libc::LOCK_EX,
                )
            },
            0
        );
        let own = super::super::locks::RunMark::place(dir.path()).unwrap();
        assert!(remove_leftovers(dir.path()).is_empty());
        assert!(live.exists());
        drop((holder, own));
    }

    #[test]
    fn only_scratch_dirs_of_killed_runs_are_removed_from_a_given_dir() {
        let base = tempfile::tempdir().unwrap();
        let killed = base.path().join(format!("faultline-scratch-{GONE}"));
        let kept = base.path().join(format!("faultline-scratch-{}", GONE + 1));
        for (d, pid) in [(&killed, GONE), (&kept, GONE + 1)] {
            fs::create_dir(d).unwrap();
            fs::write(d.join(format!("faultline-fresh-{pid}-case0.data")), b"x").unwrap();
        }
        fs::write(
            killed.join(format!("{}{GONE}", super::super::locks::ACTIVE_PREFIX)),
            b"",
        )
        .unwrap();
        let mine = killed.join("mine.txt");
        fs::write(base.path().join("mine.txt"), b"m").unwrap();
        let removed = remove_killed_scratch_dirs(base.path());
        assert_eq!(removed.len(), 3, "{removed:?}");
        assert!(!killed.exists() && !mine.exists());
        assert!(kept
            .join(format!("faultline-fresh-{}-case0.data", GONE + 1))
            .exists());
        assert!(base.path().join("mine.txt").exists());
    }
}
