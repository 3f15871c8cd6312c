//! `faultline clean`: removes the files faultline created in a data
//! directory (generated datasets and images, leftover temporaries, run
//! journals, scratch files), and nothing else.
use std::fs;
use std::path::{Path, PathBuf};

use super::dataset::{content_matches, DATA_SUFFIX, PREFIX};
use super::names::{SUBDIR, TEMP_PREFIX};
use super::sweep::remove_matching;
pub use super::sweep::{remove_killed_scratch_dirs, remove_leftovers, remove_temporaries_of_gone};
use crate::error::Result;

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
    // Killed runs' temporaries beside their exports, and their marks.
    removed.extend(remove_leftovers(dir));
    remove_matching(dir, &dataset, &mut removed)?;
    remove_matching(&dir.join("runs"), &journal, &mut removed)?;
    remove_matching(&dir.join(SUBDIR), &scratch, &mut removed)?;
    Ok(removed)
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
