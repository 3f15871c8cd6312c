//! `faultline clean`: removes the files faultline created in a data
//! directory (generated datasets and images, leftover temporaries, run
//! journals, scratch files), and nothing else.
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::atomic::TEMP_PREFIX;
use super::dataset::{content_matches, DATA_SUFFIX, PREFIX};
use crate::error::{Error, Result};
use crate::system::current_uid;

/// Removes the files faultline created in `dir` (generated datasets and
/// leftover temporaries), in `dir/runs` (run journals) and in `dir/scratch`
/// (write targets). A file must have faultline's name, belong to this user,
/// and carry faultline's marker: a dataset holds the bytes its name's seed
/// makes, a journal is one that `is_journal` accepts (the runner's journal
/// reader, given by the caller: files sit below the runner). Nothing else is
/// touched, and never a directory.
pub fn clean(dir: &Path, is_journal: &dyn Fn(&Path) -> bool) -> Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    let dataset = |path: &Path, name: &str| {
        if name.starts_with(TEMP_PREFIX) {
            return true; // a partial file under faultline's temporary name
        }
        parse_generated_name(name).is_some_and(|(size, seed)| {
            fs::metadata(path).is_ok_and(|m| m.len() == size) && content_matches(path, size, seed)
        }) || super::image::is_generated_image(path, name)
    };
    let journal = |path: &Path, name: &str| {
        name.starts_with("faultline-run-") && name.ends_with(".journal") && is_journal(path)
    };
    let scratch = |_: &Path, name: &str| {
        (name.starts_with("faultline-fresh-") || name.starts_with("faultline-overwrite-"))
            && name.ends_with(DATA_SUFFIX)
    };
    remove_matching(dir, &dataset, &mut removed)?;
    remove_matching(&dir.join("runs"), &journal, &mut removed)?;
    remove_matching(&dir.join(super::scratch::SUBDIR), &scratch, &mut removed)?;
    Ok(removed)
}

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
/// Returns what was removed; a file that cannot be removed is left.
pub fn remove_leftovers(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let leftover = |_: &Path, name: &str| {
        owner_pid(name).is_some_and(|pid| pid != std::process::id() as i32 && is_gone(pid))
    };
    for d in [
        dir.to_path_buf(),
        dir.join("runs"),
        dir.join(super::scratch::SUBDIR),
    ] {
        let _ = remove_matching(&d, &leftover, &mut removed);
    }
    removed
}

/// The (size, seed) a generated file's name promises.
fn parse_generated_name(name: &str) -> Option<(u64, u64)> {
    let middle = name.strip_prefix(PREFIX)?.strip_suffix(DATA_SUFFIX)?;
    let (size, seed) = middle.split_once('-')?;
    if seed.len() != 16 {
        return None;
    }
    Some((size.parse().ok()?, u64::from_str_radix(seed, 16).ok()?))
}

fn remove_matching(
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

    #[test]
    fn clean_removes_only_its_own_files() {
        let dir = tempfile::tempdir().unwrap();
        let a = super::super::dataset::ensure_generated(dir.path(), 4096, 1, |_| {}).unwrap();
        fs::write(dir.path().join("precious.txt"), b"keep").unwrap();
        fs::create_dir(dir.path().join("faultline-sub.data")).unwrap();
        fs::create_dir(dir.path().join("runs")).unwrap();
        let journal = dir.path().join("runs").join("faultline-run-1-2.journal");
        fs::write(&journal, b"{\"a journal\": true}\n").unwrap();
        // Faultline's names without faultline's marker are left alone.
        fs::write(
            dir.path().join("runs").join("faultline-run-3-4.journal"),
            b"{}\n",
        )
        .unwrap();
        fs::write(
            dir.path()
                .join(super::super::dataset::generated_name(4096, 2)),
            vec![0u8; 4096],
        )
        .unwrap();
        fs::write(dir.path().join("runs").join("other.journal"), b"").unwrap();
        let is_journal = |p: &Path| fs::read(p).is_ok_and(|b| b.starts_with(b"{\"a journal\""));
        let removed = clean(dir.path(), &is_journal).unwrap();
        assert_eq!(removed, vec![a.path.clone(), journal]);
        assert!(dir.path().join("runs").join("other.journal").exists());
        assert!(dir
            .path()
            .join("runs")
            .join("faultline-run-3-4.journal")
            .exists());
        assert!(
            dir.path()
                .join(super::super::dataset::generated_name(4096, 2))
                .exists(),
            "not its seed's bytes"
        );
        assert!(dir.path().join("precious.txt").exists());
        assert!(dir.path().join("faultline-sub.data").exists());
    }
}
