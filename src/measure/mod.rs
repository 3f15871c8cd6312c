//! Measuring instruments: CPU and fault counters, /proc/vmstat, page-cache
//! residency, block-device counters, per-second timelines, per-operation
//! latency, the CPU profile (`--profile`) and the environment. Each is read
//! outside the timed loop (the latency recorder, when asked for, is the one
//! exception; the profiler is switched on and off around it). The
//! interference probe ([`interference`]) is read by the runner around each
//! trial, from /proc/stat, /proc/pressure, the whole disk's counters, its
//! own and its reaped children's rusage, and the registry of active runs.

pub mod active_runs;
pub mod blockdev;
pub mod device;
pub mod environment;
pub mod interference;
pub mod latency;
pub mod procio;
pub mod procstat;
pub mod profile;
pub mod psi;
pub mod residency;
pub mod run_delay;
pub mod rusage;
pub mod timeline;
pub mod vmstat;

use std::path::Path;

/// The counters a trial reads just before and just after what it measures:
/// the file's block device, /proc/vmstat and getrusage().
pub struct CounterReading {
    device: Option<device::DeviceSnapshot>,
    vmstat: Option<vmstat::VmstatSnapshot>,
    rusage: rusage::RusageSnapshot,
}

impl CounterReading {
    /// Device first, getrusage() last: the reading nearest the clock is the
    /// process's own.
    pub fn before(device_stat: Option<&Path>) -> Self {
        let device = device_stat.and_then(device::snapshot);
        let vmstat = vmstat::snapshot().ok();
        let rusage = rusage::snapshot();
        CounterReading {
            device,
            vmstat,
            rusage,
        }
    }

    /// The mirror of [`CounterReading::before`]: getrusage() first.
    pub fn after(device_stat: Option<&Path>) -> Self {
        let rusage = rusage::snapshot();
        let vmstat = vmstat::snapshot().ok();
        let device = device_stat.and_then(device::snapshot);
        CounterReading {
            device,
            vmstat,
            rusage,
        }
    }

    /// Its getrusage() reading.
    pub fn rusage(&self) -> &rusage::RusageSnapshot {
        &self.rusage
    }

    /// What changed since `before`; an unreadable vmstat leaves the map
    /// empty and an unreadable device leaves `None`.
    pub fn since(&self, before: &CounterReading) -> CounterDelta {
        CounterDelta {
            rusage: self.rusage.delta_since(&before.rusage),
            max_rss_kib: self.rusage.max_rss_kib(),
            vmstat: match (&before.vmstat, &self.vmstat) {
                (Some(b), Some(a)) => a.delta_since(b),
                _ => Default::default(),
            },
            device: match (&before.device, &self.device) {
                (Some(b), Some(a)) => Some(a.delta_since(b)),
                _ => None,
            },
        }
    }
}

/// What changed between two [`CounterReading`]s.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CounterDelta {
    /// getrusage() deltas.
    pub rusage: rusage::Counters,
    /// Peak resident set of the process, KiB.
    pub max_rss_kib: u64,
    /// Deltas of selected /proc/vmstat counters (system-wide).
    pub vmstat: std::collections::BTreeMap<String, i64>,
    /// The file's block device (device-wide); `None` without one.
    pub device: Option<device::DeviceDelta>,
}
