//! `faultline clean`: removes the files faultline created in a data
//! directory (generated datasets and images, file sets, leftover
//! temporaries, run journals, scratch files), and nothing else.
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::dataset::{content_matches, DATA_SUFFIX, PREFIX};
use super::names::{SUBDIR, TEMP_PREFIX};
use super::sweep::{is_killed, remove_matching};
pub use super::sweep::{remove_killed_scratch_dirs, remove_leftovers, remove_temporaries_of_gone};
use crate::error::Result;
use crate::plan::FileSet;

/// What [`clean`] removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cleaned {
    /// The files of the data directory, its `runs/` and its `scratch/`.
    pub files: Vec<PathBuf>,
    /// The file sets' directories it emptied of faultline's files.
    pub sets: Vec<CleanedSet>,
}

impl Cleaned {
    /// Every file removed, the sets' members included.
    pub fn file_count(&self) -> usize {
        self.files.len() + self.sets.iter().map(|s| s.files).sum::<usize>()
    }
}

/// A file set's directory (`--files`) and what was removed from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CleanedSet {
    /// The directory.
    pub dir: PathBuf,
    /// How many of its files were removed.
    pub files: usize,
    /// Whether the directory went too (it held nothing else).
    pub dir_removed: bool,
}

/// Removes the files faultline created in `dir` (generated datasets, file
/// sets, leftover temporaries, and its records of trial times and noise), in `dir/runs` (run journals) and in
/// `dir/scratch` (write targets). A file must have faultline's name, belong
/// to this user, and carry faultline's marker: a dataset holds the bytes its
/// name's seed makes, a journal is one that `is_journal` accepts (the
/// runner's journal reader, given by the caller: files sit below the
/// runner). A file set's directory ([`FileSet::dir_name`], or the
/// temporary one of a faultline that is gone) loses the members its name
/// promises, each of its size and content, and then goes itself when it
/// is empty; anything else in it stays, and so does the directory. No
/// other directory is touched.
pub fn clean(dir: &Path, is_journal: &dyn Fn(&Path) -> bool) -> Result<Cleaned> {
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
    // The records runs and calibrate keep (trial times, the noise), when
    // they carry faultline's format key.
    let record = |path: &Path, name: &str| {
        (name == super::trial_times::FILE || name == super::noise::FILE)
            && super::made::by_faultline(path)
    };
    // Killed runs' temporaries beside their exports, and their marks.
    removed.extend(remove_leftovers(dir));
    remove_matching(dir, &dataset, &mut removed)?;
    remove_matching(dir, &record, &mut removed)?;
    remove_matching(&dir.join("runs"), &journal, &mut removed)?;
    remove_matching(&dir.join(SUBDIR), &scratch, &mut removed)?;
    let sets = clean_file_sets(dir)?;
    Ok(Cleaned {
        files: removed,
        sets,
    })
}

/// The set and seed of a file set's directory named `name`: a set's own
/// directory, or the temporary one (`<name>.tmp-<pid>`) of a faultline
/// that is gone.
fn set_of_dir(name: &str) -> Option<(FileSet, u64)> {
    let base = match name.rsplit_once(".tmp-") {
        Some((base, pid)) => {
            let pid: i32 = pid.parse().ok().filter(|&p| p > 0)?;
            if !is_killed(pid) {
                return None;
            }
            base
        }
        None => name,
    };
    FileSet::parse_dir_name(base)
}

/// Empties the file sets' directories in `dir` of the files faultline made
/// there (see [`clean`]) and removes each one left empty.
fn clean_file_sets(dir: &Path) -> Result<Vec<CleanedSet>> {
    let mut cleaned = Vec::new();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(cleaned),
        Err(e) => return Err(crate::error::Error::io("list", dir, e)),
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((set, seed)) = name.to_str().and_then(set_of_dir) else {
            continue;
        };
        let path = entry.path();
        // A real directory of this user's: never a symbolic link.
        let ours = fs::symlink_metadata(&path)
            .is_ok_and(|m| m.is_dir() && m.uid() == crate::system::current_uid());
        if !ours {
            continue;
        }
        let sizes = set.sizes(seed);
        let member = |file: &Path, name: &str| {
            FileSet::parse_file_name(name).is_some_and(|i| {
                sizes.get(i as usize).is_some_and(|&size| {
                    fs::metadata(file).is_ok_and(|m| m.len() == size)
                        && content_matches(file, size, FileSet::content_seed(seed, i))
                })
            })
        };
        let mut files = Vec::new();
        remove_matching(&path, &member, &mut files)?;
        let dir_removed = fs::remove_dir(&path).is_ok();
        if dir_removed || !files.is_empty() {
            cleaned.push(CleanedSet {
                dir: path,
                files: files.len(),
                dir_removed,
            });
        }
    }
    cleaned.sort_by(|a, b| a.dir.cmp(&b.dir));
    Ok(cleaned)
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
        // Its records go; a file of the same name it did not write stays.
        let times = dir.path().join(super::super::trial_times::FILE);
        super::super::trial_times::record(dir.path(), Default::default()).unwrap();
        fs::write(
            dir.path().join(super::super::noise::FILE),
            b"{\"pair_sd\": 0.1}",
        )
        .unwrap();
        let removed = clean(dir.path(), &is_journal).unwrap();
        assert_eq!(removed.files, vec![a.path.clone(), times, journal]);
        assert!(dir.path().join(super::super::noise::FILE).exists());
        assert!(removed.sets.is_empty());
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

    #[test]
    fn clean_empties_file_sets_of_their_members_only() {
        let data = tempfile::tempdir().unwrap();
        let set = FileSet {
            count: 5,
            min_size: 100,
            max_size: 3000,
        };
        let whole =
            crate::files::file_set::ensure_generated_set(data.path(), &set, 7, |_| {}).unwrap();
        // A second set, with a file of the user's put in it and one member
        // changed: both stay, and so does the directory.
        let other =
            crate::files::file_set::ensure_generated_set(data.path(), &set, 8, |_| {}).unwrap();
        fs::write(other.dir.join("notes.txt"), b"mine").unwrap();
        fs::write(
            &other.files[2].path,
            vec![1u8; other.files[2].size as usize],
        )
        .unwrap();
        // Look-alikes: a set's name over a symbolic link, a name out of bounds,
        // and the temporary directory of a live process (this one).
        std::os::unix::fs::symlink(&other.dir, data.path().join(set.dir_name(9))).unwrap();
        let bogus = data.path().join("faultline-files-0-1-1-0000000000000001");
        fs::create_dir(&bogus).unwrap();
        fs::write(bogus.join(FileSet::file_name(0)), b"x").unwrap();
        let live = data
            .path()
            .join(format!("{}.tmp-{}", set.dir_name(7), std::process::id()));
        fs::create_dir(&live).unwrap();
        // The temporary directory of a faultline that is gone goes.
        let gone = data
            .path()
            .join(format!("{}.tmp-{}", set.dir_name(7), (1 << 22) + 7));
        fs::create_dir(&gone).unwrap();
        fs::copy(&whole.files[0].path, gone.join(FileSet::file_name(0))).unwrap();
        let cleaned = clean(data.path(), &|_: &Path| false).unwrap();
        assert!(cleaned.files.is_empty(), "{cleaned:?}");
        let by_dir = |d: &Path| cleaned.sets.iter().find(|s| s.dir == d).cloned();
        assert_eq!(
            by_dir(&whole.dir),
            Some(CleanedSet {
                dir: whole.dir.clone(),
                files: 5,
                dir_removed: true
            })
        );
        assert_eq!(
            by_dir(&gone),
            Some(CleanedSet {
                dir: gone.clone(),
                files: 1,
                dir_removed: true
            })
        );
        assert_eq!(
            by_dir(&other.dir),
            Some(CleanedSet {
                dir: other.dir.clone(),
                files: 4,
                dir_removed: false
            })
        );
        assert_eq!(cleaned.sets.len(), 3, "{cleaned:?}");
        assert_eq!(cleaned.file_count(), 10);
        assert!(!whole.dir.exists() && !gone.exists());
        assert!(other.dir.join("notes.txt").exists());
        assert!(other.files[2].path.exists(), "not its seed's bytes");
        assert!(data.path().join(set.dir_name(9)).is_symlink());
        assert!(bogus.join(FileSet::file_name(0)).exists());
        assert!(live.exists());
    }
}
