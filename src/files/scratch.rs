//! The scratch directory: the only place write trials write, in files
//! faultline creates there itself.
//!
//! - By default it is the `scratch` subdirectory of the data directory
//!   (mode 0700, checked like the data directory). With `--dir PATH`,
//!   faultline creates a private directory of its own inside `PATH`
//!   (`faultline-scratch-<pid>`, mode 0700), to test the file system `PATH`
//!   is on, and removes it at the end.
//! - Every file is created with O_EXCL and O_NOFOLLOW, mode 0600; no
//!   existing file is ever opened for writing.
//! - A `fresh` target is a new empty file created right before its trial and
//!   removed right after it. An `overwrite` target is one file per file size,
//!   written whole with generated content and synced once, then reused: before
//!   each trial its generated content is written back in place (and synced),
//!   so that every trial's read-back check sees only what that trial wrote.
//! - Everything is removed at the end of the run, on error paths too, unless
//!   `--keep` is given; then the last file each write case wrote stays, with
//!   the overwrite targets.
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::files::dataset::{self, Dataset, PREFIX};
use crate::plan::{Case, Target};

pub use super::names::SUBDIR;

/// What the probe of a scratch directory checks, besides creating a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// write()/pwrite() (the `write` and `pwrite` methods).
    pub write: bool,
    /// A shared writable mapping (the `mmap-write` method).
    pub mmap_write: bool,
    /// O_DIRECT writes (`direct-write`, `uring-direct-write`).
    pub direct_write: bool,
}

impl Needs {
    /// What the write cases of `cases` need.
    pub fn of(cases: &[Case]) -> Needs {
        use crate::method::MethodKind;
        let mixed = |c: &&Case| c.read_share.is_some();
        Needs {
            write: cases
                .iter()
                .any(|c| c.method.writes() && c.method != MethodKind::MmapWrite)
                || cases.iter().filter(mixed).any(|c| !c.method.maps_file()),
            mmap_write: cases.iter().any(|c| c.method == MethodKind::MmapWrite)
                || cases.iter().filter(mixed).any(|c| c.method.maps_file()),
            direct_write: cases.iter().any(|c| c.method.direct_write()),
        }
    }
}

/// The scratch directory of one run and the files created in it.
#[derive(Debug)]
pub struct Scratch {
    dir: PathBuf,
    /// The directory was created for this run (inside `--dir`): removed at the end.
    own_dir: bool,
    keep: bool,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Overwrite targets by file size, and whether a trial has written them
    /// since their content was last restored.
    overwrite: BTreeMap<u64, (Dataset, bool)>,
    /// With `--keep`, the fresh file each case wrote last.
    kept_fresh: BTreeMap<usize, PathBuf>,
}

/// Makes a write past RLIMIT_FSIZE fail with EFBIG instead of killing the
/// process with SIGXFSZ. Inherited by trial children.
pub fn ignore_file_size_signal() {
    // SAFETY: setting a signal's disposition to SIG_IGN has no preconditions.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// An error from creating or filling a scratch file: [`Error::DiskFull`] when
/// there is no room, else [`Error::Io`].
fn scratch_io(op: &'static str, path: &Path, e: std::io::Error) -> Error {
    match e.raw_os_error() {
        Some(libc::ENOSPC | libc::EDQUOT | libc::EFBIG) => {
            Error::DiskFull(format!("{op} {}: {e}", path.display()))
        }
        _ => Error::io(op, path, e),
    }
}

impl Scratch {
    /// Prepares the scratch directory: `--dir` (`given`) or the data
    /// directory's `scratch`, checked with a probe file for what the plan's
    /// methods need. Also makes this process ignore SIGXFSZ
    /// ([`ignore_file_size_signal`]).
    ///
    /// Errors are [`Error::BadFile`] naming the directory and what to do: a
    /// `--dir` that does not exist, is not a directory, is not writable, or
    /// is on a file system that refuses what the methods do.
    pub fn create(
        given: Option<&Path>,
        data_dir: &Path,
        keep: bool,
        needs: Needs,
    ) -> Result<Scratch> {
        ignore_file_size_signal();
        let (dir, own_dir) = match given {
            Some(base) => {
                check_given_dir(base)?;
                probe(base, needs)?;
                let removed = super::sweep::remove_killed_scratch_dirs(base);
                if let Some(first) = removed.first() {
                    eprintln!(
                        "note: removed {} file(s) left by a faultline that was killed ({})",
                        removed.len(),
                        first.display()
                    );
                }
                let dir = make_own_dir(base)?;
                // This run's mark, removed when it ends (kept files or not):
                // a later run removes the directory only if it is still here.
                dataset::create_new(&dir.join(own_mark()))?;
                (dir, true)
            }
            None => {
                dataset::ensure_private_dir(data_dir)?;
                let dir = data_dir.join(SUBDIR);
                dataset::ensure_private_dir(&dir)?;
                probe(&dir, needs)?;
                (dir, false)
            }
        };
        Ok(Scratch {
            dir,
            own_dir,
            keep,
            state: Mutex::new(State::default()),
        })
    }

    /// The directory the files are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the files stay after the run (`--keep`).
    pub fn keep(&self) -> bool {
        self.keep
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The file the next trial of `case` (case number `id`) writes into:
    /// a new empty file for a fresh target, the restored overwrite target
    /// otherwise. A fresh file is removed when the returned [`TargetFile`] is
    /// dropped (unless `--keep`).
    pub fn target(&self, id: usize, case: &Case) -> Result<TargetFile<'_>> {
        match case.target.unwrap_or_default() {
            Target::Fresh => self.fresh(id),
            Target::Overwrite => self.overwrite(case.file_size, case.seed),
        }
    }

    fn fresh(&self, id: usize) -> Result<TargetFile<'_>> {
        let path = self.dir.join(format!(
            "{PREFIX}fresh-{}-case{id}.data",
            std::process::id()
        ));
        if let Some(previous) = self.state().kept_fresh.remove(&id) {
            fs::remove_file(&previous).map_err(|e| Error::io("remove", &previous, e))?;
        }
        dataset::create_new(&path)?;
        if self.keep {
            self.state().kept_fresh.insert(id, path.clone());
        }
        Ok(TargetFile {
            scratch: self,
            dataset: Dataset {
                path,
                size: 0,
                seed: None,
            },
            fresh: true,
        })
    }

    fn overwrite(&self, size: u64, seed: u64) -> Result<TargetFile<'_>> {
        let mut state = self.state();
        let dataset = match state.overwrite.get(&size) {
            Some((d, false)) => d.clone(),
            Some((d, true)) => {
                let d = d.clone();
                restore(&d)?;
                d
            }
            None => {
                let path = self.dir.join(format!(
                    "{PREFIX}overwrite-{}-{size}.data",
                    std::process::id()
                ));
                let d = Dataset {
                    path: path.clone(),
                    size,
                    seed: Some(seed),
                };
                // Tracked before it is written, so a failure still removes it.
                state.overwrite.insert(size, (d.clone(), false));
                let mut file = dataset::create_new(&path)?;
                dataset::write_content(&mut file, size, seed)
                    .map_err(|e| scratch_io("write", &path, e))?;
                file.sync_all().map_err(|e| scratch_io("fsync", &path, e))?;
                d
            }
        };
        state.overwrite.insert(size, (dataset.clone(), true));
        Ok(TargetFile {
            scratch: self,
            dataset,
            fresh: false,
        })
    }

    /// Removes every file this run created (unless `--keep`) and the
    /// directory made inside `--dir` once empty. Also done on drop.
    pub fn cleanup(&self) -> Result<()> {
        if self.own_dir {
            let _ = fs::remove_file(self.dir.join(own_mark()));
        }
        if self.keep {
            return Ok(());
        }
        let mut first_error = None;
        let mut state = self.state();
        for (d, _) in std::mem::take(&mut state.overwrite).into_values() {
            if let Err(e) = fs::remove_file(&d.path) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    first_error.get_or_insert(Error::io("remove", &d.path, e));
                }
            }
        }
        if self.own_dir {
            if let Err(e) = fs::remove_dir(&self.dir) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    first_error.get_or_insert(Error::io("remove directory", &self.dir, e));
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = self.cleanup();
    }
}

/// Writes an overwrite target's generated content back in place and syncs it.
fn restore(d: &Dataset) -> Result<()> {
    let seed = d.seed.expect("overwrite targets are generated");
    let mut file = OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&d.path)
        .map_err(|e| Error::io("open for restoring", &d.path, e))?;
    dataset::write_content(&mut file, d.size, seed).map_err(|e| scratch_io("write", &d.path, e))?;
    file.sync_all().map_err(|e| scratch_io("fsync", &d.path, e))
}

/// The file one write trial writes into.
#[derive(Debug)]
pub struct TargetFile<'a> {
    scratch: &'a Scratch,
    dataset: Dataset,
    fresh: bool,
}

impl TargetFile<'_> {
    /// The file, as the cache preparation and residency measurement see it.
    pub fn dataset(&self) -> &Dataset {
        &self.dataset
    }

    /// Reads the file back and checks it against what `case` writes and the
    /// trial's `checksum` (see [`crate::files::readback::check_written`]).
    pub fn verify(&self, case: &Case, checksum: u64) -> Result<()> {
        crate::files::readback::check_written(&self.dataset.path, case, checksum)
    }
}

impl Drop for TargetFile<'_> {
    fn drop(&mut self) {
        if self.fresh && !self.scratch.keep {
            let _ = fs::remove_file(&self.dataset.path);
        }
    }
}

/// `--dir` must name an existing directory.
fn check_given_dir(base: &Path) -> Result<()> {
    let bad = |why: String| Error::BadFile {
        path: base.to_path_buf(),
        why,
    };
    if let Ok(target) = fs::read_link(base) {
        return Err(bad(format!(
            "is a symbolic link (to {}); faultline makes its scratch directory in a real directory only, never through a link: give the directory itself",
            target.display()
        )));
    }
    match fs::metadata(base) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(bad(
            "is not a directory; --dir names a directory where faultline creates its own".into(),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(bad(
            "no such directory; --dir must name an existing directory".into(),
        )),
        Err(e) => Err(bad(format!("cannot be used: {e}"))),
    }
}

/// The name of this run's mark in the directory it made inside `--dir`.
fn own_mark() -> String {
    format!("{}{}", super::locks::ACTIVE_PREFIX, std::process::id())
}

/// Creates `faultline-scratch-<pid>` (or `-<pid>-<n>` if taken) in `base`, mode 0700.
fn make_own_dir(base: &Path) -> Result<PathBuf> {
    let pid = std::process::id();
    for n in 0..100 {
        let name = if n == 0 {
            format!("{PREFIX}scratch-{pid}")
        } else {
            format!("{PREFIX}scratch-{pid}-{n}")
        };
        let dir = base.join(name);
        match fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(not_writable(base, &e)),
        }
    }
    Err(Error::BadFile {
        path: base.to_path_buf(),
        why: "holds too many faultline-scratch directories; remove the old ones".into(),
    })
}

fn not_writable(dir: &Path, e: &std::io::Error) -> Error {
    Error::BadFile {
        path: dir.to_path_buf(),
        why: format!(
            "is not writable ({e}); write methods need a directory where faultline can create files"
        ),
    }
}

/// Checks that files can be created in `dir` and do what the methods need, with
/// a probe file (`.faultline-probe-<pid>`, O_EXCL, removed at once): one page
/// written with pwrite(), and a page stored through a shared writable mapping.
pub fn probe(dir: &Path, needs: Needs) -> Result<()> {
    let path = dir.join(format!(".{PREFIX}probe-{}", std::process::id()));
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => Error::BadFile {
                path: path.clone(),
                why: "exists (left by a faultline that was killed?); remove it".into(),
            },
            _ => not_writable(dir, &e),
        })?;
    let result = probe_file(&file, dir, needs).map_err(|why| Error::BadFile {
        path: dir.to_path_buf(),
        why,
    });
    drop(file);
    let _ = fs::remove_file(&path);
    result
}

fn probe_file(file: &File, dir: &Path, needs: Needs) -> std::result::Result<(), String> {
    let page = crate::system::page_size();
    if needs.write {
        file.write_at(&vec![0x5a; page], 0).map_err(|e| {
            format!("this file system refuses write() ({e}); the write methods cannot run there")
        })?;
    }
    if needs.mmap_write {
        let refused = |what: &str, e: std::io::Error| {
            format!(
                "this file system refuses {what} ({e}); mmap-write cannot run there, choose another --dir"
            )
        };
        file.set_len(page as u64)
            .map_err(|e| refused("ftruncate", e))?;
        // SAFETY: a one-page file this function created and sized; nothing
        // else knows of it.
        let mut map = unsafe { memmap2::MmapOptions::new().len(page).map_mut(file) }
            .map_err(|e| refused("shared writable mappings", e))?;
        map[0] = 0xa5;
        map.flush()
            .map_err(|e| refused("msync of a shared mapping", e))?;
    }
    if needs.direct_write {
        probe_direct_write(file, dir)?;
    }
    Ok(())
}

/// Turns O_DIRECT on for the probe file and writes one aligned block with
/// it, as `direct-write` will; the refusal names the file system.
fn probe_direct_write(file: &File, dir: &Path) -> std::result::Result<(), String> {
    use crate::method::aligned::{AlignedBuf, Alignment};
    let refused = |e: std::io::Error| {
        let fs = crate::measure::environment::filesystem_of(dir)
            .map(|fs| format!("the {fs} file system"))
            .unwrap_or_else(|| "this file system".to_string());
        format!(
            "{fs} refuses O_DIRECT ({e}), which --method direct-write and uring-direct-write need; \
             use --method pwrite or uring-write, or give a --dir on a disk file system"
        )
    };
    crate::method::direct::set_o_direct(file).map_err(refused)?;
    let alignment = Alignment::of_path(dir);
    let len = alignment.bytes as usize;
    let mut buf = AlignedBuf::new(len, len.max(crate::system::page_size()));
    match file.write_at(&buf.as_mut_slice()[..len], 0) {
        Ok(_) => Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Err(refused(e)),
        Err(e) => Err(format!(
            "an O_DIRECT write of {len} bytes failed ({e}); direct-write cannot run there, choose another --dir"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn case(target: Target, size: u64) -> Case {
        let mut c = crate::fixtures::case(crate::method::MethodKind::Pwrite);
        c.target = Some(target);
        c.file_size = size;
        c
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn own_dir_inside_given_dir_is_private_and_removed() {
        let base = tempfile::tempdir().unwrap();
        let scratch = Scratch::create(
            Some(base.path()),
            Path::new("/nonexistent"),
            false,
            Needs {
                write: true,
                mmap_write: true,
                direct_write: true,
            },
        )
        .unwrap();
        let dir = scratch.dir().to_path_buf();
        assert_eq!(dir.parent().unwrap(), base.path());
        let mode = fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        {
            let fresh = scratch.target(0, &case(Target::Fresh, 4096)).unwrap();
            let meta = fs::metadata(&fresh.dataset().path).unwrap();
            assert_eq!(meta.len(), 0);
            assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        }
        // Only the run's mark is there (removed when the run ends).
        assert_eq!(
            names(&dir),
            vec![own_mark()],
            "a fresh file goes with its trial"
        );
        let over = scratch.target(1, &case(Target::Overwrite, 10_000)).unwrap();
        assert_eq!(fs::metadata(&over.dataset().path).unwrap().len(), 10_000);
        drop(over);
        drop(scratch);
        assert!(!dir.exists());
        assert!(names(base.path()).is_empty(), "nothing left in --dir");
    }

    #[test]
    fn overwrite_target_is_restored_before_each_trial() {
        let data = tempfile::tempdir().unwrap();
        let scratch = Scratch::create(None, data.path(), false, Needs::default()).unwrap();
        let c = case(Target::Overwrite, 5000);
        let path = scratch.target(0, &c).unwrap().dataset().path.clone();
        let mut generated = Vec::new();
        dataset::write_content(&mut generated, 5000, c.seed).unwrap();
        assert_eq!(fs::read(&path).unwrap(), generated);
        fs::write(&path, vec![0u8; 5000]).unwrap(); // a trial wrote zeros
        let again = scratch.target(0, &c).unwrap();
        assert_eq!(again.dataset().path, path, "one file, reused");
        assert_eq!(fs::read(&path).unwrap(), generated, "restored");
        drop(again);
        drop(scratch);
        assert!(names(&data.path().join(SUBDIR)).is_empty());
    }

    #[test]
    fn keep_keeps_the_last_file_of_each_case() {
        let base = tempfile::tempdir().unwrap();
        let scratch =
            Scratch::create(Some(base.path()), Path::new("/x"), true, Needs::default()).unwrap();
        let c = case(Target::Fresh, 4096);
        let first = scratch.target(3, &c).unwrap().dataset().path.clone();
        assert!(first.exists());
        let second = scratch.target(3, &c).unwrap().dataset().path.clone();
        assert!(second.exists());
        let dir = scratch.dir().to_path_buf();
        drop(scratch);
        assert_eq!(names(&dir).len(), 1);
    }

    #[test]
    fn missing_and_non_directory_dirs_are_refused() {
        let err = Scratch::create(
            Some(Path::new("/nonexistent/faultline")),
            Path::new("/x"),
            false,
            Needs::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("no such directory"), "{err}");
        let file = tempfile::NamedTempFile::new().unwrap();
        let err = Scratch::create(Some(file.path()), Path::new("/x"), false, Needs::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not a directory"), "{err}");
    }
}
