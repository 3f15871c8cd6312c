//! Locks, not luck: what keeps two faultline processes from trampling on
//! each other's files.
//!
//! - A run holds a shared `flock` on `<data-dir>/.faultline-lock` from its
//!   start to its end; `faultline clean` takes it exclusively, so it refuses
//!   while a run is in progress (and a run refuses while clean works).
//! - A run also holds an exclusive `flock` on a mark of its own,
//!   `<data-dir>/.faultline-active-<pid>` ([`RunMark`]), removed when it
//!   ends. A mark left behind tells the next run that the run of that pid
//!   was killed, so its scratch and temporary files are debris, while the
//!   files a run that ended kept (`--keep`) stay
//!   ([`crate::files::clean::remove_leftovers`], which then removes the
//!   mark; a mark nobody holds locked is stale, [`is_stale_mark`]). Which
//!   other runs are active, in this data directory or elsewhere, is not told
//!   by the marks but by the per-user registry of runs
//!   ([`crate::measure::active_runs`]), which the interference record reads
//!   too.
//! - The journal of a run is locked exclusively by the run writing it
//!   ([`lock_exclusive`]), so a second `--resume` of it refuses.
//!
//! All locks are `flock(2)` locks on descriptors opened close-on-exec: they
//! end with the process, however it ends, and trial children do not keep
//! them past their `exec`. Between its `fork` and its `exec` a trial child
//! does hold a copy of every descriptor, so a run killed while it starts a
//! trial (a second Ctrl-C, SIGKILL) leaves its locks held for the moment
//! that child takes to die (it is killed with its parent, or finds its
//! parent gone and exits): a lock that is only held by a process that is
//! ending (its taker is gone, [`crate::files::lock_holders`]) is waited
//! for, up to [`HOLDER_EXIT_GRACE`], before a resume, a `clean` or a stale
//! mark is refused; a lock a live run holds is refused at once.
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::files::lock_holders;

/// The name of a data directory's lock file.
pub const DATA_DIR_LOCK: &str = ".faultline-lock";
/// The name prefix of the mark each running run holds locked.
pub const ACTIVE_PREFIX: &str = ".faultline-active-";

/// The longest a lock is waited for while only a process that is ending
/// holds it: long enough for a trial child caught between its `fork` and
/// its `exec` when its run was killed to be scheduled and die, even on a
/// loaded machine (see the module docs). A lock taken by a live process is
/// not waited for at all.
pub const HOLDER_EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// [`try_flock`]; while the lock is held only by processes that are ending
/// ([`lock_holders::Holders::Gone`], or not listed), retried every 10 ms
/// until [`HOLDER_EXIT_GRACE`] has passed. `Ok(false)` at once when a live
/// process holds it, or when it is still held after the grace.
fn flock_unless_live(file: &File, op: libc::c_int) -> std::io::Result<bool> {
    let started = std::time::Instant::now();
    loop {
        if try_flock(file, op)? {
            return Ok(true);
        }
        if started.elapsed() >= HOLDER_EXIT_GRACE
            || lock_holders::flock_holders(file) == lock_holders::Holders::Live
        {
            return Ok(false);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// `flock(fd, op | LOCK_NB)`: `Ok(false)` when another process holds a
/// conflicting lock.
fn try_flock(file: &File, op: libc::c_int) -> std::io::Result<bool> {
    // SAFETY: flock on a descriptor this File owns.
    let rc = unsafe { libc::flock(file.as_raw_fd(), op | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e)
    }
}

/// Opens (creating it, mode 0600, never through a symbolic link) a lock file.
fn open_lock_file(path: &Path) -> Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| Error::io("open the lock file", path, e))
}

/// Takes an exclusive lock on an open file (a journal), or says which
/// file is in use by another faultline. A lock held only by a run that
/// is ending is waited for ([`HOLDER_EXIT_GRACE`]).
pub fn lock_exclusive(file: &File, path: &Path) -> Result<()> {
    match flock_unless_live(file, libc::LOCK_EX) {
        Ok(true) => Ok(()),
        Ok(false) => Err(Error::BadFile {
            path: path.to_path_buf(),
            why: "is in use by another faultline run (it holds the journal's lock); wait for that run to end".into(),
        }),
        Err(e) => Err(Error::io("lock", path, e)),
    }
}

/// A data directory's lock, held until dropped.
#[derive(Debug)]
pub struct DataDirLock {
    _file: File,
}

/// Takes the data directory's lock shared (a run), or refuses while
/// `faultline clean` holds it.
pub fn lock_data_dir_shared(dir: &Path) -> Result<DataDirLock> {
    let path = dir.join(DATA_DIR_LOCK);
    let file = open_lock_file(&path)?;
    match try_flock(&file, libc::LOCK_SH) {
        Ok(true) => Ok(DataDirLock { _file: file }),
        Ok(false) => Err(Error::BadFile {
            path: dir.to_path_buf(),
            why: "is being cleaned by `faultline clean` right now; run again when it is done"
                .into(),
        }),
        Err(e) => Err(Error::io("lock", &path, e)),
    }
}

/// Takes the data directory's lock exclusively (`faultline clean`), or
/// refuses while a run holds it (waiting [`HOLDER_EXIT_GRACE`] if only a
/// run that is ending holds it).
pub fn lock_data_dir_exclusive(dir: &Path) -> Result<DataDirLock> {
    let path = dir.join(DATA_DIR_LOCK);
    let file = open_lock_file(&path)?;
    match flock_unless_live(&file, libc::LOCK_EX) {
        Ok(true) => Ok(DataDirLock { _file: file }),
        Ok(false) => Err(Error::BadFile {
            path: dir.to_path_buf(),
            why: "is in use by a faultline run in progress; clean refuses to remove files under it (run clean when it has ended)".into(),
        }),
        Err(e) => Err(Error::io("lock", &path, e)),
    }
}

/// This run's mark in its data directory: an exclusively locked file,
/// removed when dropped (and unlocked by the kernel if the run is killed,
/// so that the next run knows the files of that pid to be debris).
#[derive(Debug)]
pub struct RunMark {
    path: PathBuf,
    _file: File,
}

impl RunMark {
    /// Marks this process as running in `dir`.
    pub fn place(dir: &Path) -> Result<RunMark> {
        RunMark::place_writing(dir, &[])
    }

    /// Marks this process as running in `dir`, listing in the mark the
    /// directories outside it where it writes exports (`out_dirs`, one
    /// absolute path a line): if this run is killed, its atomic writer's
    /// temporary files there are found and removed by the next run or by
    /// `faultline clean` ([`crate::files::clean::remove_leftovers`]).
    pub fn place_writing(dir: &Path, out_dirs: &[PathBuf]) -> Result<RunMark> {
        let path = dir.join(format!("{ACTIVE_PREFIX}{}", std::process::id()));
        // A leftover of a killed run with this pid may be there, and another
        // run may be removing it as stale right now: lock, then make sure
        // the name still leads to the file locked.
        for _ in 0..100 {
            let file = open_lock_file(&path)?;
            if !try_flock(&file, libc::LOCK_EX).map_err(|e| Error::io("lock", &path, e))? {
                std::thread::sleep(std::time::Duration::from_millis(1));
                continue;
            }
            let same = match (file.metadata(), std::fs::symlink_metadata(&path)) {
                (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
                _ => false,
            };
            if same {
                use std::io::Write;
                use std::os::unix::ffi::OsStrExt;
                let mut list = Vec::new();
                for d in out_dirs {
                    let bytes = d.as_os_str().as_bytes();
                    if d.is_absolute() && !bytes.contains(&b'\n') {
                        list.extend_from_slice(bytes);
                        list.push(b'\n');
                    }
                }
                let _ = file.set_len(0);
                (&file)
                    .write_all(&list)
                    .map_err(|e| Error::io("write", &path, e))?;
                return Ok(RunMark { path, _file: file });
            }
        }
        Err(Error::Trial(format!(
            "could not mark this run as active in {}",
            dir.display()
        )))
    }
}

impl Drop for RunMark {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether the mark at `path` is stale: no live process holds it locked
/// (the kernel dropped the lock of the run that was killed). A mark that
/// cannot be opened is not called stale. A mark held only by a child of
/// its run that is dying is waited for ([`HOLDER_EXIT_GRACE`]).
pub fn is_stale_mark(path: &Path) -> bool {
    let Ok(file) = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
    else {
        return false;
    };
    // Locked only for the test; unlocked when `file` closes.
    matches!(flock_unless_live(&file, libc::LOCK_EX), Ok(true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_runs_exclude_clean_and_clean_excludes_runs() {
        let dir = tempfile::tempdir().unwrap();
        let a = lock_data_dir_shared(dir.path()).unwrap();
        let b = lock_data_dir_shared(dir.path()).unwrap();
        let e = lock_data_dir_exclusive(dir.path()).unwrap_err().to_string();
        assert!(e.contains("in use by a faultline run in progress"), "{e}");
        drop((a, b));
        let clean = lock_data_dir_exclusive(dir.path()).unwrap();
        let e = lock_data_dir_shared(dir.path()).unwrap_err().to_string();
        assert!(e.contains("being cleaned"), "{e}");
        drop(clean);
    }

    #[test]
    fn a_journal_is_locked_by_one_holder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        std::fs::write(&path, b"x").unwrap();
        let first = File::open(&path).unwrap();
        lock_exclusive(&first, &path).unwrap();
        let second = File::open(&path).unwrap();
        let e = lock_exclusive(&second, &path).unwrap_err().to_string();
        assert!(e.contains("in use by another faultline run"), "{e}");
        drop(first);
        lock_exclusive(&second, &path).unwrap();
    }

    /// `flock -x path sleep held`, once it holds the lock: flock(1) takes
    /// the lock and runs `sleep` with the descriptor.
    fn flock_holding(path: &Path, held: &str) -> std::process::Child {
        let taker = std::process::Command::new("flock")
            .arg("-x")
            .arg(path)
            .args(["sleep", held])
            .spawn()
            .expect("flock(1), from util-linux, runs");
        let probe = open_lock_file(path).unwrap();
        let started = std::time::Instant::now();
        while try_flock(&probe, libc::LOCK_EX).unwrap() {
            flock_release(&probe);
            assert!(started.elapsed().as_secs() < 10, "flock(1) took no lock");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(
            lock_holders::flock_holders(&probe),
            lock_holders::Holders::Live,
            "held by flock(1), alive"
        );
        taker
    }

    /// What a run killed while it starts a trial leaves: its lock held, for
    /// `held` seconds (long enough for the checks below on a loaded machine,
    /// well under [`HOLDER_EXIT_GRACE`]), by a copy of the descriptor in a
    /// process whose parent, which took the lock, is gone ([`flock_holding`],
    /// with `flock` then killed).
    fn left_by_a_killed_run(path: &Path, held: &str) {
        let mut taker = flock_holding(path, held);
        taker.kill().unwrap();
        taker.wait().unwrap();
        assert_eq!(
            lock_holders::flock_holders(&open_lock_file(path).unwrap()),
            lock_holders::Holders::Gone,
            "still held, by sleep, for a taker that is gone"
        );
    }

    fn flock_release(file: &File) {
        // SAFETY: flock on a descriptor this File owns.
        unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_UN) };
    }

    #[test]
    fn a_journal_held_by_a_run_that_is_ending_is_taken_once_it_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        left_by_a_killed_run(&path, "1");
        let resume = File::open(&path).unwrap();
        let started = std::time::Instant::now();
        lock_exclusive(&resume, &path).unwrap();
        assert!(started.elapsed() < HOLDER_EXIT_GRACE);
    }

    #[test]
    fn a_lock_a_live_process_holds_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let _live = held_by_a_live_process(&path);
        let second = File::open(&path).unwrap();
        let started = std::time::Instant::now();
        assert!(lock_exclusive(&second, &path).is_err());
        assert!(
            started.elapsed() < HOLDER_EXIT_GRACE,
            "refused before the grace ran out"
        );
    }

    /// `path` locked exclusively by a `flock -x path sleep 30` that runs,
    /// killed when dropped.
    fn held_by_a_live_process(path: &Path) -> impl Drop {
        struct Kill(std::process::Child);
        impl Drop for Kill {
            fn drop(&mut self) {
                let _ = self.0.kill();
                let _ = self.0.wait();
            }
        }
        Kill(flock_holding(path, "30"))
    }

    #[test]
    fn clean_and_the_stale_mark_test_wait_for_a_holder_that_is_ending() {
        let dir = tempfile::tempdir().unwrap();
        left_by_a_killed_run(&dir.path().join(DATA_DIR_LOCK), "1");
        lock_data_dir_exclusive(dir.path()).unwrap();
        let mark = dir.path().join(format!("{ACTIVE_PREFIX}999999999"));
        left_by_a_killed_run(&mark, "1");
        assert!(is_stale_mark(&mark), "the lock is let go within the grace");
    }

    #[test]
    fn a_mark_is_stale_once_its_holder_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let mine = RunMark::place(dir.path()).unwrap();
        assert!(!is_stale_mark(&mine.path), "held by this run");
        let left = dir.path().join(format!("{ACTIVE_PREFIX}999999999"));
        std::fs::write(&left, b"").unwrap();
        assert!(is_stale_mark(&left), "nobody holds it");
        let holder = open_lock_file(&left).unwrap();
        assert!(try_flock(&holder, libc::LOCK_EX).unwrap());
        assert!(!is_stale_mark(&left), "held, as a live run's is");
        drop(holder);
        assert!(is_stale_mark(&left));
        assert!(!is_stale_mark(&dir.path().join("missing")));
        let path = mine.path.clone();
        drop(mine);
        assert!(!path.exists(), "a run that ends removes its mark");
    }
}
