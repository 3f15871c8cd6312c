//! The sampler: a software `cpu-clock` event per online CPU, following the
//! calling thread and every thread it creates afterwards (`inherit`), each
//! with an mmap'd ring buffer that a drain thread empties.
//!
//! Why `cpu-clock`: it is a kernel hrtimer, so it works in virtual machines
//! without hardware counters. Why one event per CPU: the kernel refuses to
//! mmap an inherited per-task event that follows every CPU (`pid = 0, cpu =
//! -1, inherit = 1`: EINVAL, since all the children would write into one
//! buffer); with `cpu = N` it works, and the samples of every inherited child
//! event running on CPU N land in that CPU's buffer. `perf record` does the same.
//!
//! Why a drain thread: a trial's loop may run for many seconds and must not
//! stop to read samples. The drain thread is spawned *before* the events are
//! opened, so it is not inherited and never sampled; it sleeps in poll(2)
//! until a buffer is a quarter full (or [`POLL_MS`] pass) and counts each
//! call chain in a hash map of raw addresses, which is all the work done
//! while the loop runs. Its CPU time is measured ([`Chains::drain_cpu_ns`]).
//! When a buffer is full the kernel drops samples and then writes a
//! `PERF_RECORD_LOST` with how many: they are counted ([`Chains::lost`]).
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::mpsc;
use std::thread::JoinHandle;

use perf_event::events::Software;
use perf_event::{Builder, SampleFlag};
use perf_event_open_sys as sys;

use super::ProfileMode;

/// What the sampler collected: raw call chains as the kernel wrote them (with
/// its `PERF_CONTEXT_*` markers) and how many samples had each.
#[derive(Clone, Debug, Default)]
pub struct Chains {
    /// Sample records read.
    pub samples: u64,
    /// Samples the kernel reported lost (its ring buffer was full).
    pub lost: u64,
    /// Throttle records: the kernel lowered the rate (`perf_cpu_time_max_percent`).
    pub throttled: u64,
    /// Samples per thread id.
    pub tids: BTreeMap<u32, u64>,
    /// Call chain -> samples.
    pub chains: HashMap<Vec<u64>, u64>,
    /// CPU time the drain thread used, ns (it runs in the trial's process).
    pub drain_cpu_ns: u64,
}

/// Data bytes of each CPU's ring buffer (a power of two). At 4 kHz with
/// ~40-frame chains (~400 bytes a sample) it holds ~160 ms of one busy
/// thread's samples; the drain thread wakes at a quarter of that.
pub const RING_BYTES: usize = 256 * 1024;
/// The smallest ring tried when the locked-memory limit refuses the default.
const MIN_RING_BYTES: usize = 16 * 1024;
/// The longest the drain thread sleeps between reads, ms.
pub const POLL_MS: i32 = 50;

/// A running sampler (see the module documentation).
pub struct Sampler {
    /// Duplicates of the events' descriptors, for the enable/disable ioctls
    /// from this thread while the drain thread owns the events.
    control: Vec<OwnedFd>,
    /// Written to stop the drain thread.
    stop: OwnedFd,
    drain: Option<JoinHandle<io::Result<Chains>>>,
}

/// The online CPUs, from sysfs (`0-3,6`).
pub fn online_cpus() -> io::Result<Vec<usize>> {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/online")?;
    parse_cpu_list(text.trim())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, format!("bad CPU list {text:?}")))
}

fn parse_cpu_list(s: &str) -> Option<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in s.split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().ok()?..=b.parse::<usize>().ok()?),
            None => cpus.push(part.parse().ok()?),
        }
    }
    (!cpus.is_empty()).then_some(cpus)
}

fn owned(fd: libc::c_int) -> io::Result<OwnedFd> {
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn eventfd() -> io::Result<OwnedFd> {
    // SAFETY: plain system call; the result is checked by `owned`.
    owned(unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) })
}

fn duplicate(fd: &impl AsRawFd) -> io::Result<OwnedFd> {
    // SAFETY: F_DUPFD_CLOEXEC of a live descriptor; checked by `owned`.
    owned(unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) })
}

/// Opens one CPU's event, disabled, with a ring of `ring` data bytes.
fn open_cpu(
    cpu: usize,
    hz: u64,
    mode: ProfileMode,
    ring: usize,
) -> io::Result<perf_event::Sampler> {
    let kernel = mode == ProfileMode::KernelUser;
    let mut builder = Builder::new(Software::CPU_CLOCK);
    builder
        .observe_self()
        .one_cpu(cpu)
        .inherit(true)
        .enabled(false)
        .sample_frequency(hz)
        .sample(SampleFlag::IP | SampleFlag::TID | SampleFlag::CALLCHAIN)
        .exclude_kernel(!kernel)
        .exclude_callchain_kernel(!kernel)
        .exclude_hv(true)
        .wakeup_watermark(ring / 4);
    builder.build()?.sampled(ring)
}

/// Opens every CPU's event, halving the rings while the locked-memory limit
/// refuses them (an unprivileged user has `perf_event_mlock_kb`).
fn open_all(hz: u64, mode: ProfileMode) -> io::Result<Vec<perf_event::Sampler>> {
    let cpus = online_cpus()?;
    let mut ring = RING_BYTES;
    'sizes: loop {
        let mut rings = Vec::with_capacity(cpus.len());
        for &cpu in &cpus {
            match open_cpu(cpu, hz, mode, ring) {
                Ok(r) => rings.push(r),
                Err(e) if e.raw_os_error() == Some(libc::EPERM) && ring > MIN_RING_BYTES => {
                    ring /= 2;
                    continue 'sizes;
                }
                Err(e) => return Err(e),
            }
        }
        return Ok(rings);
    }
}

impl Sampler {
    /// Opens the events, disabled, following the calling thread and every
    /// thread it creates from now on. Call it on the thread that runs (or
    /// spawns the threads of) the main loop.
    pub fn open(hz: u64, mode: ProfileMode) -> io::Result<Sampler> {
        // The drain thread first, so that it does not inherit the events.
        let (send, receive) = mpsc::channel::<Vec<perf_event::Sampler>>();
        let stop = eventfd()?;
        let stop_for_drain = duplicate(&stop)?;
        let drain = std::thread::Builder::new()
            .name("profile-drain".into())
            .spawn(move || match receive.recv() {
                Ok(rings) => drain_loop(rings, stop_for_drain),
                Err(_) => Ok(Chains::default()),
            })?;
        let opened = open_all(hz, mode).and_then(|rings| {
            let control = rings
                .iter()
                .map(duplicate)
                .collect::<io::Result<Vec<_>>>()?;
            Ok((rings, control))
        });
        match opened {
            Ok((rings, control)) => {
                send.send(rings)
                    .map_err(|_| io::Error::other("the profile's drain thread is gone"))?;
                Ok(Sampler {
                    control,
                    stop,
                    drain: Some(drain),
                })
            }
            Err(e) => {
                drop(send);
                let _ = drain.join();
                Err(e)
            }
        }
    }

    fn ioctl_all(&self, enable: bool) -> io::Result<()> {
        for fd in &self.control {
            // SAFETY: an ioctl on a perf event descriptor we own; the
            // argument is unused without PERF_IOC_FLAG_GROUP.
            let r = unsafe {
                if enable {
                    sys::ioctls::ENABLE(fd.as_raw_fd(), 0)
                } else {
                    sys::ioctls::DISABLE(fd.as_raw_fd(), 0)
                }
            };
            if r < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// Starts sampling: applies to the inherited events of threads that exist
    /// already, and threads created later inherit the enabled state.
    pub fn enable(&self) -> io::Result<()> {
        self.ioctl_all(true)
    }

    /// Stops sampling (no sample is written after this returns).
    pub fn disable(&self) -> io::Result<()> {
        self.ioctl_all(false)
    }

    fn stop_drain(&mut self) -> io::Result<Chains> {
        let _ = self.disable();
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to our eventfd.
        unsafe { libc::write(self.stop.as_raw_fd(), (&one as *const u64).cast(), 8) };
        match self.drain.take() {
            Some(h) => h
                .join()
                .map_err(|_| io::Error::other("the profile's drain thread panicked"))?,
            None => Ok(Chains::default()),
        }
    }

    /// Stops sampling, reads what is left and hands back what was collected.
    pub fn finish(mut self) -> io::Result<Chains> {
        self.stop_drain()
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        if self.drain.is_some() {
            let _ = self.stop_drain();
        }
    }
}

/// CPU time of the calling thread, ns.
pub(super) fn thread_cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes into a live timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn drain_loop(mut rings: Vec<perf_event::Sampler>, stop: OwnedFd) -> io::Result<Chains> {
    let started = thread_cpu_ns();
    let mut chains = Chains::default();
    let mut fds: Vec<libc::pollfd> = rings
        .iter()
        .map(|r| r.as_raw_fd())
        .chain([stop.as_raw_fd()])
        .map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    loop {
        // SAFETY: fds is a live array of pollfd of the given length.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, POLL_MS) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        for ring in rings.iter_mut() {
            drain_ring(ring, &mut chains);
        }
        if fds.last().is_some_and(|p| p.revents & libc::POLLIN != 0) {
            // Stopped: the events are disabled; read what is left once more.
            for ring in rings.iter_mut() {
                drain_ring(ring, &mut chains);
            }
            chains.drain_cpu_ns = thread_cpu_ns().saturating_sub(started);
            return Ok(chains);
        }
    }
}

fn drain_ring(ring: &mut perf_event::Sampler, chains: &mut Chains) {
    use perf_event::data::Record;
    while let Some(record) = ring.next_record() {
        match record.ty() {
            sys::bindings::PERF_RECORD_SAMPLE | sys::bindings::PERF_RECORD_LOST => {}
            sys::bindings::PERF_RECORD_THROTTLE => {
                chains.throttled += 1;
                continue;
            }
            _ => continue,
        }
        match record.parse_record() {
            Ok(Record::Sample(s)) => {
                chains.samples += 1;
                if let Some(tid) = s.tid() {
                    *chains.tids.entry(tid).or_default() += 1;
                }
                if let Some(chain) = s.callchain().filter(|c| !c.is_empty()) {
                    if let Some(n) = chains.chains.get_mut(chain) {
                        *n += 1;
                    } else {
                        chains.chains.insert(chain.to_vec(), 1);
                    }
                } else if let Some(ip) = s.ip() {
                    // No call chain (should not happen): the IP alone.
                    *chains.chains.entry(vec![ip]).or_default() += 1;
                }
            }
            Ok(Record::Lost(l)) => chains.lost += l.lost,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0-1"), Some(vec![0, 1]));
        assert_eq!(parse_cpu_list("0-2,5,7-8"), Some(vec![0, 1, 2, 5, 7, 8]));
        assert_eq!(parse_cpu_list("3"), Some(vec![3]));
        assert_eq!(parse_cpu_list("x"), None);
        assert_eq!(parse_cpu_list(""), None);
    }
}
