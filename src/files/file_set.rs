//! Generating a file set (`--files`, [`crate::plan::file_set`]) in the data
//! directory: one directory per (set, seed), holding one generated file per
//! member, each with the content of its own seed.
//!
//! The set is written in a temporary directory (`….tmp-<pid>`), synced once
//! (syncfs, not one fsync per file), then renamed into place, so the final
//! name only ever holds a whole set; a SIGINT or SIGTERM stops the writing
//! and the temporary directory is removed. One left by a killed faultline
//! (its pid gone) is removed the next time a set is generated. A set found
//! in place is checked (every file there, regular, of its size; the first
//! and last files' content probed) and regenerated if it is not whole.
use std::fs;
use std::io::Write;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::files::dataset::{self, Dataset};
use crate::plan::FileSet;

/// A generated set on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedSet {
    /// The set's directory.
    pub dir: PathBuf,
    /// Its files, in file order, each with its size and content seed.
    pub files: Vec<Dataset>,
}

/// The set's files as they should be in `dir`.
pub(super) fn members(dir: &Path, set: &FileSet, seed: u64) -> Vec<Dataset> {
    set.sizes(seed)
        .into_iter()
        .enumerate()
        .map(|(i, size)| Dataset {
            path: dir.join(FileSet::file_name(i as u32)),
            size,
            seed: Some(FileSet::content_seed(seed, i as u32)),
        })
        .collect()
}

/// Whether every member is in place with its size, and the first and last
/// hold their content.
fn whole(files: &[Dataset]) -> bool {
    let sized = files
        .iter()
        .all(|d| fs::symlink_metadata(&d.path).is_ok_and(|m| m.is_file() && m.len() == d.size));
    sized
        && [files.first(), files.last()]
            .into_iter()
            .flatten()
            .all(|d| dataset::content_matches(&d.path, d.size, d.seed.expect("generated")))
}

/// Whether the set of `seed` is in `data_dir` whole (as a run would find
/// it and reuse it, not generate it again).
pub fn is_whole(data_dir: &Path, set: &FileSet, seed: u64) -> bool {
    let dir = data_dir.join(set.dir_name(seed));
    fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) && whole(&members(&dir, set, seed))
}

/// Whether process `pid` is alive.
fn alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Removes the temporary set directories of faultlines that died while
/// writing one.
fn remove_killed_temporaries(data_dir: &Path) {
    let Ok(entries) = fs::read_dir(data_dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some((_, pid)) = name.rsplit_once(".tmp-") else {
            continue;
        };
        let ours = name.starts_with("faultline-files-");
        if let (true, Ok(pid)) = (ours, pid.parse::<i32>()) {
            if pid != std::process::id() as i32 && !alive(pid) {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
    }
}

/// Returns the set in `data_dir`, generating it if it is missing or not
/// whole. `on_generate` is called before it is generated.
pub fn ensure_generated_set(
    data_dir: &Path,
    set: &FileSet,
    seed: u64,
    on_generate: impl FnOnce(&Path),
) -> Result<GeneratedSet> {
    dataset::ensure_private_dir(data_dir)?;
    let dir = data_dir.join(set.dir_name(seed));
    let files = members(&dir, set, seed);
    match fs::symlink_metadata(&dir) {
        Ok(meta) if meta.is_dir() && whole(&files) => {
            return Ok(GeneratedSet { dir, files });
        }
        Ok(meta) if meta.is_dir() => {
            eprintln!(
                "warning: the file set {} is not whole (a file missing, resized or modified); regenerating it",
                dir.display()
            );
            fs::remove_dir_all(&dir).map_err(|e| Error::io("remove", &dir, e))?;
        }
        Ok(_) => {
            return Err(Error::BadFile {
                path: dir,
                why: "exists but is not a directory; remove it".into(),
            })
        }
        Err(_) => {}
    }
    remove_killed_temporaries(data_dir);
    on_generate(&dir);
    let tmp = data_dir.join(format!("{}.tmp-{}", set.dir_name(seed), std::process::id()));
    let written = write_set(&tmp, &members(&tmp, set, seed));
    if let Err(e) = written {
        let _ = fs::remove_dir_all(&tmp);
        return Err(match e {
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::Interrupted => {
                Error::Interrupted(format!(
                    "interrupted while generating the file set {}; its temporary directory was removed and nothing else was written",
                    dir.display()
                ))
            }
            other => other,
        });
    }
    fs::rename(&tmp, &dir).map_err(|e| {
        let _ = fs::remove_dir_all(&tmp);
        Error::io("rename", &tmp, e)
    })?;
    if let Ok(parent) = fs::File::open(data_dir) {
        let _ = parent.sync_all();
    }
    Ok(GeneratedSet { dir, files })
}

/// Writes every member into the new directory `tmp`, then syncs its file system once.
fn write_set(tmp: &Path, files: &[Dataset]) -> Result<()> {
    {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .mode(0o700)
            .create(tmp)
            .map_err(|e| Error::io("create directory", tmp, e))?;
    }
    for d in files {
        if crate::system::stop_requested() {
            return Err(Error::io(
                "write",
                &d.path,
                std::io::Error::new(std::io::ErrorKind::Interrupted, "interrupted by a signal"),
            ));
        }
        let mut file = dataset::create_new(&d.path)?;
        let seed = d.seed.expect("generated");
        dataset::write_content(&mut file, d.size, seed)
            .and_then(|()| file.flush())
            .map_err(|e| Error::io("write", &d.path, e))?;
    }
    let dir = fs::File::open(tmp).map_err(|e| Error::io("open", tmp, e))?;
    // SAFETY: syncfs on a descriptor this function owns.
    if unsafe { libc::syncfs(dir.as_raw_fd()) } != 0 {
        return Err(Error::io("syncfs", tmp, std::io::Error::last_os_error()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_is_generated_once_whole_and_regenerated_when_broken() {
        let data = tempfile::tempdir().unwrap();
        let set = FileSet {
            count: 20,
            min_size: 100,
            max_size: 5000,
        };
        let mut generated = 0;
        let a = ensure_generated_set(data.path(), &set, 3, |_| generated += 1).unwrap();
        assert_eq!(a.files.len(), 20);
        for d in &a.files {
            let bytes = fs::read(&d.path).unwrap();
            let mut want = vec![0u8; d.size as usize];
            dataset::GeneratedContent::new(d.seed.unwrap()).read(0, &mut want);
            assert_eq!(bytes, want);
        }
        let b = ensure_generated_set(data.path(), &set, 3, |_| generated += 1).unwrap();
        assert_eq!((a, generated), (b.clone(), 1));
        assert!(is_whole(data.path(), &set, 3));
        assert!(
            !is_whole(data.path(), &set, 4),
            "another seed's set is not there"
        );
        fs::remove_file(&b.files[7].path).unwrap();
        assert!(!is_whole(data.path(), &set, 3));
        ensure_generated_set(data.path(), &set, 3, |_| generated += 1).unwrap();
        assert_eq!(generated, 2);
        assert!(whole(&b.files));
        // Nothing but the set is left in the data directory.
        let names: Vec<_> = fs::read_dir(data.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1);
        use std::os::unix::fs::PermissionsExt;
        let mode = names[0].metadata().unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "private, as the data directory");
    }
}
