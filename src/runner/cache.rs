//! Page-cache control: bringing a file into the state a case asks for.
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;

use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::error::{Error, Result};
use crate::files::dataset::Dataset;
use crate::plan::cache::{CacheState, WarmBy};

fn fadvise(file: &File, advice: libc::c_int) -> std::io::Result<()> {
    // SAFETY: plain syscall on a valid descriptor; offset 0, length 0 = whole file.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, advice) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::from_raw_os_error(rc))
    }
}

/// Evicts one file: fsync (so no dirty page stays behind), then
/// posix_fadvise(DONTNEED).
pub fn evict(file: &File) -> std::io::Result<()> {
    file.sync_all()?;
    fadvise(file, libc::POSIX_FADV_DONTNEED)
}

/// Drops the whole page cache: sync(), then `1` into /proc/sys/vm/drop_caches (root only).
pub fn drop_caches() -> std::io::Result<()> {
    // SAFETY: sync() has no preconditions.
    unsafe { libc::sync() };
    std::fs::write("/proc/sys/vm/drop_caches", b"1\n")
}

/// Brings files into a cache state before each trial.
#[derive(Clone, Debug)]
pub struct Preparer {
    /// Cold means drop_caches instead of per-file eviction.
    pub drop_caches: bool,
}

/// A warm file the last trial left as its preparation made it: every page
/// still resident after a trial that only read it. The next trial asking
/// for the same warm state of the same file starts from it as it is,
/// instead of evicting the file and reading it back from the device
/// (256 MiB each time in the main job: about a third of its wall time).
///
/// Kept only when nothing can have changed the cache between the two:
/// one file (not a set), warmed by `seq` or `random` reads (the folio
/// sizes they leave are what the state means), a trial that writes no
/// file, runs in no memory cgroup and gives its mapping no MADV_HUGEPAGE,
/// and every page resident after it.
/// The next trial's residency is measured before it starts as always;
/// a page missing then means a full preparation again.
#[derive(Clone, Debug, Default)]
pub struct KeptWarm {
    last: Option<(std::path::PathBuf, WarmBy)>,
}

/// What a trial did to its file's cache, as [`KeptWarm::after_trial`] needs it.
#[derive(Clone, Copy, Debug)]
pub struct TrialTouch {
    /// The state the trial's case asked for.
    pub state: CacheState,
    /// How a warm state was reached.
    pub by: WarmBy,
    /// Whether the trial could have changed the file's cache other than by
    /// reading it: it writes, reads a set of files, or ran in a memory
    /// cgroup.
    pub may_disturb: bool,
    /// Whether every page of the file was resident after the trial.
    pub all_resident_after: bool,
}

impl KeptWarm {
    /// Whether a trial asking for `state` (reached `by`) on `path` may start
    /// from the cache the last trial left, if every page is still resident.
    pub fn may_keep(&self, path: &std::path::Path, state: CacheState, by: WarmBy) -> bool {
        state == CacheState::Warm
            && self
                .last
                .as_ref()
                .is_some_and(|(p, b)| p == path && *b == by)
    }

    /// Records what the trial just run on `path` left behind.
    pub fn after_trial(&mut self, path: &std::path::Path, touch: TrialTouch) {
        let keepable = touch.state == CacheState::Warm
            && matches!(touch.by, WarmBy::Seq | WarmBy::Random)
            && !touch.may_disturb
            && touch.all_resident_after;
        self.last = keepable.then(|| (path.to_path_buf(), touch.by));
    }

    /// How a kept state is recorded in a sample's `cache_prepared_by`.
    pub fn label(by: WarmBy) -> String {
        format!("kept-from-evict+{by}-read")
    }
}

impl Preparer {
    /// Puts `dataset` into `state` (reached `by` for warm), and returns how it
    /// was done, e.g. `fadvise-dontneed` or `evict+seq-read`. The caller
    /// measures what was reached.
    pub fn prepare(&self, dataset: &Dataset, state: CacheState, by: WarmBy) -> Result<String> {
        let io = |op| move |e| Error::io(op, &dataset.path, e);
        let file = File::open(&dataset.path).map_err(io("open"))?;
        match state {
            CacheState::AsIs => Ok("as-is".into()),
            CacheState::Cold => {
                if self.drop_caches {
                    file.sync_all().map_err(io("fsync"))?;
                    drop_caches().map_err(|e| Error::io("write", "/proc/sys/vm/drop_caches", e))?;
                    Ok("drop-caches".into())
                } else {
                    evict(&file).map_err(io("evict"))?;
                    Ok("fadvise-dontneed".into())
                }
            }
            CacheState::Warm => {
                evict(&file).map_err(io("evict"))?;
                match by {
                    WarmBy::Seq => warm_sequentially(&file).map_err(io("read"))?,
                    WarmBy::Random => warm_randomly(&file, dataset.size).map_err(io("read"))?,
                    WarmBy::Written => rewrite(dataset)?,
                }
                Ok(format!(
                    "evict+{by}-{}",
                    if by == WarmBy::Written {
                        "back"
                    } else {
                        "read"
                    }
                ))
            }
        }
    }
}

impl Preparer {
    /// Puts every file of a set (`--files`) into `state`: as
    /// [`Preparer::prepare`] does for one file, but with one syncfs for the
    /// whole set instead of an fsync per file (the set's files are written
    /// once, when generated, and only ever read, so nothing is dirty; an
    /// fsync of each of 10,000 clean files still costs a journal flush
    /// each). `drop_caches` drops the whole page cache once.
    pub fn prepare_set(&self, files: &[Dataset], state: CacheState, by: WarmBy) -> Result<String> {
        let Some(first) = files.first() else {
            return Ok("as-is".into());
        };
        if state == CacheState::AsIs {
            return Ok("as-is".into());
        }
        fn io<'a>(op: &'static str, d: &'a Dataset) -> impl Fn(std::io::Error) -> Error + 'a {
            move |e| Error::io(op, &d.path, e)
        }
        let sync = File::open(&first.path).map_err(io("open", first))?;
        // SAFETY: syncfs on a descriptor this function owns.
        if unsafe { libc::syncfs(sync.as_raw_fd()) } != 0 {
            return Err(Error::io(
                "syncfs",
                &first.path,
                std::io::Error::last_os_error(),
            ));
        }
        if state == CacheState::Cold && self.drop_caches {
            drop_caches().map_err(|e| Error::io("write", "/proc/sys/vm/drop_caches", e))?;
            return Ok("syncfs+drop-caches".into());
        }
        for d in files {
            let file = File::open(&d.path).map_err(io("open", d))?;
            fadvise(&file, libc::POSIX_FADV_DONTNEED).map_err(io("evict", d))?;
            if state == CacheState::Warm {
                match by {
                    WarmBy::Seq => warm_sequentially(&file).map_err(io("read", d))?,
                    WarmBy::Random => warm_randomly(&file, d.size).map_err(io("read", d))?,
                    WarmBy::Written => rewrite(d)?,
                }
            }
        }
        Ok(match state {
            CacheState::Cold => "syncfs+fadvise-dontneed".into(),
            _ => format!("syncfs+evict+{by}-read of each file"),
        })
    }

    /// Tops up a state that [`Preparer::prepare`] did not fully reach: a
    /// warm file is read again without evicting first (only missing pages
    /// cost anything; `seq` re-reads sequentially, the others page by page),
    /// a cold one is evicted again. Returns what was done, e.g. `+top-up`.
    pub fn top_up(&self, dataset: &Dataset, state: CacheState, by: WarmBy) -> Result<String> {
        let io = |op| move |e| Error::io(op, &dataset.path, e);
        let file = File::open(&dataset.path).map_err(io("open"))?;
        match (state, by) {
            (CacheState::AsIs, _) => return Ok(String::new()),
            (CacheState::Cold, _) => evict(&file).map_err(io("evict"))?,
            (CacheState::Warm, WarmBy::Seq) => warm_sequentially(&file).map_err(io("read"))?,
            (CacheState::Warm, _) => warm_randomly(&file, dataset.size).map_err(io("read"))?,
        }
        Ok("+top-up".into())
    }
}

/// Reads the file whole with 1 MiB read() calls (the kernel's read-ahead then
/// builds large folios).
fn warm_sequentially(mut file: &File) -> std::io::Result<()> {
    let mut buffer = vec![0u8; 1 << 20];
    while file.read(&mut buffer)? > 0 {}
    Ok(())
}

/// Reads every 4 KiB page once in a shuffled order with read-ahead off, so the
/// cache holds small folios.
fn warm_randomly(file: &File, size: u64) -> std::io::Result<()> {
    fadvise(file, libc::POSIX_FADV_RANDOM)?;
    let pages = size.div_ceil(4096);
    let mut order: Vec<u64> = (0..pages).collect();
    order.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(pages));
    let mut buffer = [0u8; 4096];
    for page in order {
        file.read_at(&mut buffer, page * 4096)?;
    }
    Ok(())
}

/// Writes a generated file's content again in place, then syncs, so the
/// cache holds just-written (clean) pages. Refused for a user's file.
fn rewrite(dataset: &Dataset) -> Result<()> {
    let Some(seed) = dataset.seed else {
        return Err(Error::Plan(format!(
            "--warm-by written rewrites the file, and {} is not a file faultline created; use --warm-by seq or random",
            dataset.path.display()
        )));
    };
    let io = |op| move |e| Error::io(op, &dataset.path, e);
    let mut file = OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&dataset.path)
        .map_err(io("open for rewriting"))?;
    crate::files::dataset::write_content(&mut file, dataset.size, seed).map_err(io("rewrite"))?;
    file.sync_all().map_err(io("fsync"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::residency;
    use crate::plan::cache::{COLD_MAX, WARM_MIN};

    #[test]
    fn a_warm_file_is_kept_only_after_a_trial_that_left_it_whole_and_undisturbed() {
        let (a, b) = (std::path::Path::new("/a"), std::path::Path::new("/b"));
        let touch = |state, by| TrialTouch {
            state,
            by,
            may_disturb: false,
            all_resident_after: true,
        };
        let mut kept = KeptWarm::default();
        assert!(
            !kept.may_keep(a, CacheState::Warm, WarmBy::Seq),
            "nothing run yet"
        );
        kept.after_trial(a, touch(CacheState::Warm, WarmBy::Seq));
        assert!(kept.may_keep(a, CacheState::Warm, WarmBy::Seq));
        // Another file, another way of warming, or another state: prepared.
        assert!(!kept.may_keep(b, CacheState::Warm, WarmBy::Seq));
        assert!(!kept.may_keep(a, CacheState::Warm, WarmBy::Random));
        assert!(!kept.may_keep(a, CacheState::Cold, WarmBy::Seq));
        assert!(!kept.may_keep(a, CacheState::AsIs, WarmBy::Seq));
        // What the last trial did decides; each of these forgets the file.
        for (state, by, may_disturb, all_resident_after) in [
            (CacheState::Cold, WarmBy::Seq, false, true),
            (CacheState::Warm, WarmBy::Seq, true, true),
            (CacheState::Warm, WarmBy::Seq, false, false),
            (CacheState::Warm, WarmBy::Written, false, true),
            (CacheState::AsIs, WarmBy::Seq, false, true),
        ] {
            kept.after_trial(a, touch(CacheState::Warm, WarmBy::Seq));
            kept.after_trial(
                a,
                TrialTouch {
                    state,
                    by,
                    may_disturb,
                    all_resident_after,
                },
            );
            for by in [WarmBy::Seq, WarmBy::Random, WarmBy::Written] {
                assert!(
                    !kept.may_keep(a, CacheState::Warm, by),
                    "kept after {state:?} {by:?} {may_disturb} {all_resident_after}"
                );
            }
        }
        kept.after_trial(b, touch(CacheState::Warm, WarmBy::Random));
        assert!(kept.may_keep(b, CacheState::Warm, WarmBy::Random));
        assert_eq!(
            KeptWarm::label(WarmBy::Random),
            "kept-from-evict+random-read"
        );
    }

    #[test]
    fn top_up_restores_a_partly_evicted_warm_file_and_re_evicts_a_cold_one() {
        let dir = tempfile::tempdir_in(std::env::current_dir().unwrap()).unwrap();
        let dataset =
            crate::files::dataset::ensure_generated(dir.path(), 4 << 20, 3, |_| {}).unwrap();
        let preparer = Preparer { drop_caches: false };
        let file = File::open(&dataset.path).unwrap();
        let fraction = || residency::measure(&file).unwrap().fraction();
        for by in [WarmBy::Seq, WarmBy::Random] {
            preparer.prepare(&dataset, CacheState::Warm, by).unwrap();
            // Take the second half away, as page reclaim might.
            // SAFETY: plain syscall on a valid descriptor.
            let rc = unsafe {
                libc::posix_fadvise(
                    file.as_raw_fd(),
                    2 << 20,
                    2 << 20,
                    libc::POSIX_FADV_DONTNEED,
                )
            };
            assert_eq!(rc, 0);
            assert!(fraction() < 0.6, "half evicted: {}", fraction());
            assert_eq!(
                preparer.top_up(&dataset, CacheState::Warm, by).unwrap(),
                "+top-up"
            );
            assert!(fraction() >= WARM_MIN, "topped up by {by}: {}", fraction());
        }
        preparer
            .top_up(&dataset, CacheState::Cold, WarmBy::Seq)
            .unwrap();
        assert!(fraction() <= COLD_MAX);
        assert_eq!(
            preparer
                .top_up(&dataset, CacheState::AsIs, WarmBy::Seq)
                .unwrap(),
            ""
        );
    }
}
