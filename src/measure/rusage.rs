//! getrusage(RUSAGE_SELF) snapshots and their deltas.
//!
//! A snapshot is taken before and after the measured section (outside any
//! timed loop); [`RusageSnapshot::delta_since`] turns the pair into the
//! [`Counters`] a sample records. `RUSAGE_SELF` covers every thread of the
//! calling process, and nothing of its children.
use serde::{Deserialize, Serialize};

/// getrusage() counters (deltas).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// User CPU time, ns.
    pub user_ns: u64,
    /// System CPU time, ns.
    pub sys_ns: u64,
    /// Minor page faults.
    pub minflt: u64,
    /// Major page faults.
    pub majflt: u64,
    /// Voluntary context switches.
    pub nvcsw: u64,
    /// Involuntary context switches.
    pub nivcsw: u64,
    /// Blocks read by the file system (512-byte units).
    pub inblock: u64,
    /// Blocks written by the file system (512-byte units).
    pub oublock: u64,
}

/// A raw getrusage() reading.
#[derive(Clone, Copy, Debug)]
pub struct RusageSnapshot {
    counters: Counters,
    max_rss_kib: u64,
}

/// Converts a `timeval` to nanoseconds, treating negative fields as 0.
fn timeval_ns(tv: libc::timeval) -> u64 {
    let secs = u64::try_from(tv.tv_sec).unwrap_or(0);
    let usecs = u64::try_from(tv.tv_usec).unwrap_or(0);
    secs.saturating_mul(1_000_000_000)
        .saturating_add(usecs.saturating_mul(1_000))
}

/// A kernel `long` counter as u64 (negative values, which do not occur, become 0).
fn count(v: libc::c_long) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

/// Reads getrusage(RUSAGE_SELF) for this process.
///
/// getrusage(RUSAGE_SELF) cannot fail with a valid buffer; should it ever,
/// the snapshot reads all zeros.
pub fn snapshot() -> RusageSnapshot {
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable `rusage` for the kernel to fill.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    if rc != 0 {
        return RusageSnapshot {
            counters: Counters::default(),
            max_rss_kib: 0,
        };
    }
    RusageSnapshot {
        counters: Counters {
            user_ns: timeval_ns(ru.ru_utime),
            sys_ns: timeval_ns(ru.ru_stime),
            minflt: count(ru.ru_minflt),
            majflt: count(ru.ru_majflt),
            nvcsw: count(ru.ru_nvcsw),
            nivcsw: count(ru.ru_nivcsw),
            inblock: count(ru.ru_inblock),
            oublock: count(ru.ru_oublock),
        },
        // Linux reports ru_maxrss in KiB.
        max_rss_kib: count(ru.ru_maxrss),
    }
}

impl RusageSnapshot {
    /// Counters accumulated since `earlier`.
    ///
    /// Each field is `self - earlier`, saturating at 0 (so snapshots passed
    /// in the wrong order give zeros, not wrapped values).
    pub fn delta_since(&self, earlier: &RusageSnapshot) -> Counters {
        let (a, b) = (&self.counters, &earlier.counters);
        Counters {
            user_ns: a.user_ns.saturating_sub(b.user_ns),
            sys_ns: a.sys_ns.saturating_sub(b.sys_ns),
            minflt: a.minflt.saturating_sub(b.minflt),
            majflt: a.majflt.saturating_sub(b.majflt),
            nvcsw: a.nvcsw.saturating_sub(b.nvcsw),
            nivcsw: a.nivcsw.saturating_sub(b.nivcsw),
            inblock: a.inblock.saturating_sub(b.inblock),
            oublock: a.oublock.saturating_sub(b.oublock),
        }
    }

    /// Peak resident set size so far, KiB.
    pub fn max_rss_kib(&self) -> u64 {
        self.max_rss_kib
    }

    /// The cumulative counters of this reading (since the process started).
    pub fn totals(&self) -> Counters {
        self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CPU time consumed by the calling thread, ns.
    fn thread_cpu_ns() -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        assert_eq!(rc, 0);
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    #[test]
    fn touching_fresh_anonymous_memory_counts_minor_faults() {
        const LEN: usize = 8 << 20;
        const PAGE: usize = 4096;
        // SAFETY: a fresh private anonymous mapping; checked for MAP_FAILED.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                LEN,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED);
        // No (m)THP: one fault per base page. Failure is harmless for the test bound.
        // SAFETY: `p..p+LEN` is our mapping.
        unsafe { libc::madvise(p, LEN, libc::MADV_NOHUGEPAGE) };
        let before = snapshot();
        let base = p as *mut u8;
        for off in (0..LEN).step_by(PAGE) {
            // SAFETY: `off < LEN`, inside the writable mapping.
            unsafe { base.add(off).write_volatile(1) };
        }
        let after = snapshot();
        // SAFETY: unmapping the mapping created above, no longer used.
        unsafe { libc::munmap(p, LEN) };
        let d = after.delta_since(&before);
        assert!(d.minflt >= 2000, "minflt delta {} < 2000", d.minflt);
        assert!(
            after.max_rss_kib() >= 8 * 1024,
            "max rss {}",
            after.max_rss_kib()
        );
    }

    #[test]
    fn spinning_counts_user_time() {
        let before = snapshot();
        let start = thread_cpu_ns();
        let mut x = 0u64;
        while thread_cpu_ns() - start < 50_000_000 {
            // Enough work per clock read (a syscall on some VMs) that user time dominates.
            for i in 0..2_000_000u64 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
            }
        }
        let d = snapshot().delta_since(&before);
        // RUSAGE_SELF includes this thread's >= 50 ms of CPU.
        assert!(d.user_ns + d.sys_ns >= 45_000_000, "{d:?}");
        assert!(d.user_ns >= 25_000_000, "user_ns {}", d.user_ns);
    }

    #[test]
    fn delta_saturates_at_zero() {
        let earlier = snapshot();
        let mut later = earlier;
        later.counters.minflt = 0;
        later.counters.user_ns = 0;
        let d = later.delta_since(&earlier);
        assert_eq!(d.minflt, 0);
        assert_eq!(d.user_ns, 0);
        let same = earlier.delta_since(&earlier);
        assert_eq!(same, Counters::default());
    }
}
