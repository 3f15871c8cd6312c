//! Page-cache residency of a file: cachestat() (Linux 6.5+), else mincore().
//!
//! cachestat() asks the page cache directly, in time proportional to the
//! cached range, and needs no mapping. mincore() needs a temporary
//! `MAP_SHARED` read-only mapping of the whole file (set up without
//! populating it, so measuring does not change the answer) and walks it.
//! Since Linux 5.0, mincore() reports page-cache residency only for files the
//! caller owns or could open for writing (root always can); otherwise it sees
//! only pages mapped into the caller itself, which for a fresh mapping is none.
//!
//! Setting the environment variable [`NO_CACHESTAT_ENV`] makes [`measure`]
//! skip cachestat and use mincore, e.g. to test the fallback.
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

use serde::{Deserialize, Serialize};

/// The cachestat() system call number (the same on every Linux architecture;
/// the libc crate does not define it on all of them).
pub const SYS_CACHESTAT: libc::c_long = 451;

/// Environment variable that, when set (to anything), makes [`measure`] use
/// mincore instead of cachestat.
pub const NO_CACHESTAT_ENV: &str = "FAULTLINE_NO_CACHESTAT";

/// Which instrument measured residency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResidencySource {
    /// The cachestat() system call.
    Cachestat,
    /// mincore() over a temporary mapping.
    Mincore,
}

impl ResidencySource {
    /// The name used in exports: `cachestat` or `mincore`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ResidencySource::Cachestat => "cachestat",
            ResidencySource::Mincore => "mincore",
        }
    }
}

impl std::fmt::Display for ResidencySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How much of a file is in the page cache.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Residency {
    /// Pages in the page cache.
    pub resident_pages: u64,
    /// Pages the file spans.
    pub total_pages: u64,
    /// The instrument used.
    pub source: ResidencySource,
}

impl Residency {
    /// Resident fraction, 0 to 1 (1 for an empty file).
    pub fn fraction(&self) -> f64 {
        if self.total_pages == 0 {
            1.0
        } else {
            self.resident_pages as f64 / self.total_pages as f64
        }
    }
}

/// `struct cachestat_range` of the kernel ABI: `len == 0` means to end of file.
#[repr(C)]
struct CachestatRange {
    off: u64,
    len: u64,
}

/// Page-cache state of a file as cachestat() reports it (`struct cachestat`),
/// counted in base pages.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cachestat {
    /// Pages in the page cache.
    pub nr_cache: u64,
    /// Dirty pages.
    pub nr_dirty: u64,
    /// Pages under writeback.
    pub nr_writeback: u64,
    /// Pages evicted (that left shadow entries behind).
    pub nr_evicted: u64,
    /// Evicted pages that would still be in the active list had they stayed.
    pub nr_recently_evicted: u64,
}

/// Calls cachestat() over the whole file.
///
/// Fails with `ENOSYS` before Linux 6.5 (or without `CONFIG_CACHESTAT_SYSCALL`).
pub fn cachestat(file: &File) -> io::Result<Cachestat> {
    let range = CachestatRange { off: 0, len: 0 };
    let mut cs = Cachestat::default();
    // SAFETY: cachestat(fd, range, cstat, flags) reads `range` and writes one
    // `struct cachestat` into `cs`; both are live #[repr(C)] values of the
    // kernel's layout (all u64 fields).
    let rc = unsafe {
        libc::syscall(
            SYS_CACHESTAT,
            file.as_raw_fd(),
            &range as *const CachestatRange,
            &mut cs as *mut Cachestat,
            0 as libc::c_uint,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(cs)
}

/// Whether cachestat() works on `file` (the running kernel has it, and the
/// file's kind supports it).
pub fn cachestat_available(file: &File) -> bool {
    cachestat(file).is_ok()
}

/// Pages a file of `len` bytes spans.
fn pages_for(len: u64, page: u64) -> u64 {
    len.div_ceil(page)
}

/// Measures residency with cachestat, falling back to mincore.
///
/// Falls back when cachestat fails for any reason (e.g. `ENOSYS` on kernels
/// before 6.5) and when [`NO_CACHESTAT_ENV`] is set.
pub fn measure(file: &File) -> io::Result<Residency> {
    measure_impl(file, std::env::var_os(NO_CACHESTAT_ENV).is_none())
}

fn measure_impl(file: &File, try_cachestat: bool) -> io::Result<Residency> {
    if try_cachestat {
        if let Ok(r) = measure_with(file, ResidencySource::Cachestat) {
            return Ok(r);
        }
    }
    measure_with(file, ResidencySource::Mincore)
}

/// Measures residency with the given instrument, without fallback.
pub fn measure_with(file: &File, source: ResidencySource) -> io::Result<Residency> {
    let len = file.metadata()?.len();
    let page = crate::system::page_size() as u64;
    let total_pages = pages_for(len, page);
    let resident_pages = match source {
        ResidencySource::Cachestat => cachestat(file)?.nr_cache,
        ResidencySource::Mincore => mincore_resident(file, len, page)?,
    };
    Ok(Residency {
        // A page cache page past EOF (a racing truncate) must not push the fraction over 1.
        resident_pages: resident_pages.min(total_pages),
        total_pages,
        source,
    })
}

/// A mapping unmapped on drop.
struct Mapping {
    addr: *mut libc::c_void,
    len: usize,
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `addr..addr+len` is a mapping this value created and owns;
        // nothing refers into it.
        unsafe { libc::munmap(self.addr, self.len) };
    }
}

/// Counts the resident pages of the first `len` bytes of `file` with mincore().
fn mincore_resident(file: &File, len: u64, page: u64) -> io::Result<u64> {
    if len == 0 {
        return Ok(0);
    }
    let map_len = usize::try_from(len).map_err(|_| io::Error::from_raw_os_error(libc::EFBIG))?;
    let pages = usize::try_from(pages_for(len, page))
        .map_err(|_| io::Error::from_raw_os_error(libc::EFBIG))?;
    // SAFETY: a fresh read-only shared mapping of the file, not populated; the
    // kernel picks the address. Its memory is never read through.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            map_len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    let mapping = Mapping { addr, len: map_len };
    let mut vec = vec![0u8; pages];
    // SAFETY: `mapping` covers `map_len` bytes from a page-aligned address and
    // `vec` holds one byte per page of that range.
    let rc = unsafe { libc::mincore(mapping.addr, mapping.len, vec.as_mut_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    drop(mapping);
    Ok(vec.iter().filter(|b| *b & 1 == 1).count() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    const LEN: usize = 4 << 20;

    fn temp_file(len: usize) -> (tempfile::TempDir, File) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let mut f = File::create(&path).unwrap();
        let block: Vec<u8> = (0..65536u32).map(|i| (i * 7 + 3) as u8).collect();
        let mut left = len;
        while left > 0 {
            let n = left.min(block.len());
            f.write_all(&block[..n]).unwrap();
            left -= n;
        }
        f.sync_all().unwrap();
        drop(f);
        (dir, File::open(&path).unwrap())
    }

    fn evict(f: &File) {
        f.sync_all().ok();
        // SAFETY: plain syscall on an open fd.
        let rc = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        assert_eq!(rc, 0);
    }

    fn read_all(f: &File) {
        let mut buf = Vec::new();
        let mut r: &File = f;
        std::io::Seek::rewind(&mut r).unwrap();
        r.read_to_end(&mut buf).unwrap();
        assert_eq!(buf.len(), LEN);
    }

    /// Both instruments, or only mincore when the kernel lacks cachestat.
    fn both(f: &File) -> Vec<Residency> {
        let mut v = vec![measure_with(f, ResidencySource::Mincore).unwrap()];
        match measure_with(f, ResidencySource::Cachestat) {
            Ok(r) => v.push(r),
            Err(e) => eprintln!("cachestat unavailable ({e}); checking mincore only"),
        }
        for r in &v {
            assert_eq!(
                r.total_pages,
                (LEN as u64).div_ceil(crate::system::page_size() as u64)
            );
        }
        v
    }

    fn assert_agree(v: &[Residency]) {
        if let [a, b] = v {
            assert!(
                (a.fraction() - b.fraction()).abs() <= 0.01,
                "instruments disagree: {a:?} vs {b:?}"
            );
        }
    }

    #[test]
    fn cold_then_warm_with_both_instruments() {
        let (_dir, f) = temp_file(LEN);
        evict(&f);
        let cold = both(&f);
        for r in &cold {
            assert!(r.fraction() <= 0.01, "cold: {r:?}");
        }
        assert_agree(&cold);

        read_all(&f);
        let warm = both(&f);
        for r in &warm {
            assert!(r.fraction() >= 0.99, "warm: {r:?}");
        }
        assert_agree(&warm);
    }

    #[test]
    fn partially_cached_file_agrees() {
        let (_dir, f) = temp_file(LEN);
        evict(&f);
        // No readahead: read exactly the first quarter.
        // SAFETY: plain syscall on an open fd.
        unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_RANDOM) };
        let mut buf = vec![0u8; LEN / 4];
        std::os::unix::fs::FileExt::read_exact_at(&f, &mut buf, 0).unwrap();
        let v = both(&f);
        for r in &v {
            assert!((0.2..=0.6).contains(&r.fraction()), "partial: {r:?}");
        }
        assert_agree(&v);
    }

    #[test]
    fn measuring_with_mincore_does_not_populate() {
        let (_dir, f) = temp_file(LEN);
        evict(&f);
        for _ in 0..3 {
            let r = measure_with(&f, ResidencySource::Mincore).unwrap();
            assert!(r.fraction() <= 0.01, "{r:?}");
        }
    }

    #[test]
    fn fallback_and_default_sources() {
        let (_dir, f) = temp_file(64 << 10);
        let r = measure_impl(&f, false).unwrap();
        assert_eq!(r.source, ResidencySource::Mincore);
        assert_eq!(
            r.total_pages,
            (64u64 << 10).div_ceil(crate::system::page_size() as u64)
        );
        let r = measure_impl(&f, true).unwrap();
        let expect = if cachestat_available(&f) {
            ResidencySource::Cachestat
        } else {
            ResidencySource::Mincore
        };
        assert_eq!(r.source, expect);
        assert_eq!(r.source.to_string(), expect.as_str());
    }

    #[test]
    fn empty_file_spans_no_pages() {
        let (_dir, f) = temp_file(0);
        for source in [ResidencySource::Mincore, ResidencySource::Cachestat] {
            match measure_with(&f, source) {
                Ok(r) => {
                    assert_eq!((r.resident_pages, r.total_pages), (0, 0));
                    assert_eq!(r.fraction(), 1.0);
                }
                Err(e) => assert_eq!(source, ResidencySource::Cachestat, "{e}"),
            }
        }
        assert_eq!(measure(&f).unwrap().total_pages, 0);
    }

    #[test]
    fn page_rounding() {
        assert_eq!(pages_for(0, 4096), 0);
        assert_eq!(pages_for(1, 4096), 1);
        assert_eq!(pages_for(4096, 4096), 1);
        assert_eq!(pages_for(4097, 4096), 2);
    }
}
