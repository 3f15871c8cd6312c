//! A process's own CPU time and storage I/O: `/proc/<pid>/io`, `getrusage`
//! and `wait4`, and reaping a child in two steps so that its `io` file can
//! still be read after it exited.
//!
//! Findings (checked by the tests below; docs/interference.md has the
//! measurements):
//! - `/proc/<pid>/io` (the thread group) adds the live threads' counters to
//!   those of the threads that already exited; `/proc/<pid>/task/<tid>/io`
//!   is one thread's alone. `/proc/self/io` read by a single-threaded child
//!   at the end of its loop therefore misses nothing of its threads.
//! - `read_bytes` counts the bytes of the block I/O the process submitted
//!   (its page-cache misses and the readahead it triggered); reads served
//!   from the cache count 0, and other processes' readahead is not charged
//!   to it. `write_bytes` counts pages the process *dirtied*, when it
//!   dirtied them, not when writeback reached the device.
//! - `getrusage`'s `ru_inblock`/`ru_oublock` are the same counters in
//!   512-byte units (`read_bytes >> 9`, `(write_bytes −
//!   cancelled_write_bytes) >> 9`), and `wait4` returns them for a reaped
//!   child, including its threads and its own reaped children. So the
//!   runner gets a trial's own bytes without `/proc` at all.
//! - A zombie's `/proc/<pid>/io` is still readable: `waitid(WNOWAIT)` waits
//!   for the exit without reaping, the parent reads the file, then reaps.
use std::io;

use serde::{Deserialize, Serialize};

/// The counters of `/proc/<pid>/io`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcIo {
    /// Bytes passed to read-like system calls (cached or not).
    pub rchar: u64,
    /// Bytes passed to write-like system calls.
    pub wchar: u64,
    /// Read-like system calls.
    pub syscr: u64,
    /// Write-like system calls.
    pub syscw: u64,
    /// Bytes the process caused to be fetched from storage.
    pub read_bytes: u64,
    /// Bytes the process dirtied (to be written to storage).
    pub write_bytes: u64,
    /// Dirtied bytes that were truncated before writeback.
    pub cancelled_write_bytes: u64,
}

/// Parses the text of `/proc/<pid>/io`; `None` when a field is missing.
pub fn parse(text: &str) -> Option<ProcIo> {
    let field = |name: &str| {
        text.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name)
                .then(|| v.trim().parse::<u64>().ok())
                .flatten()
        })
    };
    Some(ProcIo {
        rchar: field("rchar")?,
        wchar: field("wchar")?,
        syscr: field("syscr")?,
        syscw: field("syscw")?,
        read_bytes: field("read_bytes")?,
        write_bytes: field("write_bytes")?,
        cancelled_write_bytes: field("cancelled_write_bytes")?,
    })
}

/// Reads `/proc/<pid>/io` (`pid` may be a zombie not yet reaped).
pub fn read(pid: i32) -> io::Result<ProcIo> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/io"))?;
    parse(&text).ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "unreadable io file"))
}

/// CPU time and block counts of a process (or of its reaped children).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// User + system CPU time, ns.
    pub cpu_ns: u64,
    /// Bytes read from storage (`ru_inblock × 512`).
    pub read_bytes: u64,
    /// Bytes written to storage, less cancelled ones (`ru_oublock × 512`).
    pub write_bytes: u64,
}

impl Usage {
    /// From a `struct rusage`.
    pub fn from_rusage(r: &libc::rusage) -> Usage {
        let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
        Usage {
            cpu_ns: ns(r.ru_utime) + ns(r.ru_stime),
            read_bytes: r.ru_inblock as u64 * 512,
            write_bytes: r.ru_oublock as u64 * 512,
        }
    }

    /// The change since `earlier` (saturating).
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            cpu_ns: self.cpu_ns.saturating_sub(earlier.cpu_ns),
            read_bytes: self.read_bytes.saturating_sub(earlier.read_bytes),
            write_bytes: self.write_bytes.saturating_sub(earlier.write_bytes),
        }
    }

    /// The sum of two usages.
    pub fn plus(&self, other: &Usage) -> Usage {
        Usage {
            cpu_ns: self.cpu_ns + other.cpu_ns,
            read_bytes: self.read_bytes + other.read_bytes,
            write_bytes: self.write_bytes + other.write_bytes,
        }
    }
}

/// `getrusage(who)`: `libc::RUSAGE_SELF` (this process, all its threads)
/// or `libc::RUSAGE_CHILDREN` (every child reaped so far).
pub fn getrusage(who: libc::c_int) -> Usage {
    // SAFETY: an all-zero rusage is valid; getrusage only writes into it.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `r` is a valid out pointer; RUSAGE_SELF/CHILDREN cannot fail.
    unsafe { libc::getrusage(who, &mut r) };
    Usage::from_rusage(&r)
}

/// Waits until child `pid` has exited, without reaping it: it stays a
/// zombie, so `/proc/<pid>/io` can still be read. Retries on `EINTR`.
pub fn wait_exited_keep(pid: i32) -> io::Result<()> {
    loop {
        // SAFETY: an all-zero siginfo_t is valid; waitid only writes into it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: valid out pointer; P_PID with a child's pid.
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// A reaped child: its raw wait status and its resource usage.
#[derive(Clone, Copy, Debug)]
pub struct Reaped {
    /// The status word of `wait4` (use `libc::WIFEXITED` etc.).
    pub status: i32,
    /// The child's CPU time and block counts, threads and reaped children included.
    pub usage: Usage,
}

/// Reaps child `pid` with `wait4`, returning its usage. Retries on `EINTR`.
///
/// With std's `Child`, call this instead of `Child::wait` (std would then
/// find no child); dropping a `Child` does not wait for it.
pub fn reap(pid: i32) -> io::Result<Reaped> {
    loop {
        let mut status = 0;
        // SAFETY: as in `getrusage`.
        let mut r: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: valid out pointers; blocks until `pid` exits.
        let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut r) };
        if rc == pid {
            return Ok(Reaped {
                status,
                usage: Usage::from_rusage(&r),
            });
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Waits for `pid` to exit, reads its `/proc/<pid>/io` while it is a
/// zombie, then reaps it. The `io` reading is `None` if it failed.
pub fn reap_with_io(pid: i32) -> io::Result<(Reaped, Option<ProcIo>)> {
    wait_exited_keep(pid)?;
    let io = read(pid).ok();
    Ok((reap(pid)?, io))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{block_device_tempdir, serial, uncached_file};
    use std::io::Read;
    use std::process::Command;

    #[test]
    fn parses_fixture() {
        let io = parse(include_str!("../../tests/fixtures/proc/proc_io.txt")).unwrap();
        assert_eq!(io.read_bytes, 33_554_432);
        assert_eq!(io.write_bytes, 1_052_672);
        assert_eq!(io.cancelled_write_bytes, 4096);
        assert_eq!(io.syscr, 330);
        assert_eq!(parse("rchar: 1\n"), None);
    }

    #[test]
    fn zombie_io_is_readable_and_matches_wait4() {
        let _serial = serial();
        let dir = block_device_tempdir();
        let path = uncached_file(dir.path(), 8 << 20);
        // The child reads the cold file: its own page-cache misses.
        // Reaped below by reap_with_io, not by std.
        #[allow(clippy::zombie_processes)]
        let child = Command::new("cat")
            .arg(&path)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id() as i32;
        let (reaped, io) = reap_with_io(pid).unwrap();
        let io = io.expect("zombie /proc/<pid>/io readable");
        assert!(libc::WIFEXITED(reaped.status));
        assert!(io.read_bytes >= 8 << 20, "{io:?}");
        // Same counter, 512-byte units.
        assert_eq!(
            reaped.usage.read_bytes,
            io.read_bytes / 512 * 512,
            "{reaped:?} {io:?}"
        );
        assert!(std::fs::metadata(format!("/proc/{pid}")).is_err(), "reaped");
    }

    #[test]
    fn group_io_includes_exited_threads() {
        let _serial = serial();
        let dir = block_device_tempdir();
        let path = uncached_file(dir.path(), 4 << 20);
        let before = read(std::process::id() as i32).unwrap();
        let p = path.clone();
        // A thread reads the cold file and exits; its tid's io goes with it.
        let tid = std::thread::spawn(move || {
            let mut buf = Vec::new();
            std::fs::File::open(&p)
                .unwrap()
                .read_to_end(&mut buf)
                .unwrap();
            // SAFETY: gettid has no preconditions.
            let tid = unsafe { libc::gettid() };
            let own = std::fs::read_to_string(format!("/proc/self/task/{tid}/io")).unwrap();
            (tid, parse(&own).unwrap())
        })
        .join()
        .unwrap();
        let after = read(std::process::id() as i32).unwrap();
        // The thread's own file had its reads; the group keeps them after it exited.
        assert!(tid.1.read_bytes >= 4 << 20, "{:?}", tid.1);
        assert!(
            after.read_bytes - before.read_bytes >= 4 << 20,
            "{before:?} {after:?}"
        );
        // The main thread's own file does not have them.
        let main =
            std::fs::read_to_string(format!("/proc/self/task/{}/io", std::process::id())).unwrap();
        let main = parse(&main).unwrap();
        assert!(main.read_bytes < after.read_bytes, "{main:?} {after:?}");
    }
}
