//! Samples: what one trial measured, as it is exported.
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What the trial child measured about itself and sends back to the runner.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChildReport {
    /// Main loop wall time, ns.
    pub wall_ns: u64,
    /// Whether the trial was stopped (Ctrl-Z, SIGSTOP) and continued while
    /// it ran: its times then hold the pause, and the runner marks the
    /// sample interfered.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub continued: bool,
    /// Setup (buffer allocation; mmap, advice, populate), ns.
    pub setup_ns: u64,
    /// Teardown (munmap, free), ns.
    pub teardown_ns: u64,
    /// Time spent syncing written data (fsync, fdatasync or msync), ns: the
    /// sync after the loop (`--sync end`) or the sum of the syncs inside it
    /// (`--sync each`, then left out of `wall_ns`). 0 when nothing syncs.
    #[serde(default)]
    pub sync_ns: u64,
    /// getrusage() deltas over setup + loop + sync + teardown.
    #[serde(flatten)]
    pub rusage: crate::measure::rusage::Counters,
    /// The page faults `rusage` counted in setup, outside the main loop's
    /// clock (MAP_POPULATE's prefault, a pre-faulted buffer); `None` where
    /// setup is not apart from the loop (threaded and duration-bounded
    /// trials) and in results from before it was counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup_faults: Option<SetupFaults>,
    /// Peak resident set of the trial process, KiB.
    pub max_rss_kib: u64,
    /// Deltas of selected /proc/vmstat counters (system-wide) over setup + loop + teardown.
    pub vmstat: BTreeMap<String, i64>,
    /// Requests and bytes the file's block device served over setup + loop +
    /// teardown (device-wide); `None` when the file has no block device.
    #[serde(default)]
    pub device: Option<crate::measure::device::DeviceDelta>,
    /// Bytes delivered to the workload (read methods) or written (write
    /// methods); for a mixed case (`--read-share`) both, `bytes_written` of
    /// them written.
    pub bytes: u64,
    /// A mixed case's bytes written (its bytes read are `bytes` less these);
    /// absent for every other case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_written: Option<u64>,
    /// Many files (`--files`): the files opened and closed (or mapped and
    /// unmapped) in the main loop; absent for one file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_opened: Option<u64>,
    /// I/O system calls the method issued in the main loop.
    pub syscalls: u64,
    /// Operations delivered to the workload: blocks, or a trace's
    /// operations (over every thread); 0 in results from before it was counted.
    #[serde(default)]
    pub ops: u64,
    /// The workload's checksum.
    pub checksum: u64,
    /// Per-operation latency percentiles, when the case asked for them.
    #[serde(default)]
    pub latency: Option<crate::measure::latency::LatencyPercentiles>,
    /// Each thread's own time (setup + loop + teardown), ns, when the case
    /// runs on threads (`--threads`); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thread_ns: Vec<u64>,
    /// Proportional set size of the trial process (KiB, from
    /// /proc/self/smaps_rollup), read after the main loop and before
    /// teardown, so a mapping's pages still count; only with `--procs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pss_kib: Option<u64>,
    /// With `--procs N`: each process's own figures (the sample's other
    /// fields are those of the slowest process); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub procs: Vec<ProcStat>,
    /// One point per second of a duration-bounded trial ([`crate::trial::timed`]);
    /// empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<crate::measure::timeline::TimelinePoint>,
    /// The distinct blocks (pages, for a trace) the trial touched, counted
    /// after its clocks stopped ([`crate::pattern::Footprint`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub footprint: Option<crate::pattern::Footprint>,
    /// Passes over the file inside this trial (`--min-trial-time`); the
    /// clocks, bytes and syscalls are those of all of them. Absent: one pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<u32>,
    /// How long the trial's thread waited for a CPU over the trial (one-thread
    /// trials; the interference rule judges them by it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_wait: Option<crate::measure::run_delay::CpuWait>,
    /// Where the main loop's CPU time went (`--profile`), named by the parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::measure::profile::TrialProfile>,
    /// The profile as the child sends it, before the parent names it (the
    /// runner replaces it with `profile`; it is never journaled or exported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_profile: Option<crate::measure::profile::RawProfile>,
}

/// Page faults taken in a trial's setup (every pass's, with `--min-trial-time`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetupFaults {
    /// Minor page faults.
    pub minflt: u64,
    /// Major page faults.
    pub majflt: u64,
}

impl SetupFaults {
    /// The faults between two getrusage() readings.
    pub fn between(
        before: &crate::measure::rusage::RusageSnapshot,
        after: &crate::measure::rusage::RusageSnapshot,
    ) -> SetupFaults {
        let d = after.delta_since(before);
        SetupFaults {
            minflt: d.minflt,
            majflt: d.majflt,
        }
    }

    /// The sum of two passes' setup faults.
    pub fn plus(self, other: SetupFaults) -> SetupFaults {
        SetupFaults {
            minflt: self.minflt + other.minflt,
            majflt: self.majflt + other.majflt,
        }
    }
}

impl ChildReport {
    /// A report holding only the counters of `delta` (what changed around the
    /// trial); the trial fills in its clocks and counts.
    pub fn counted(delta: crate::measure::CounterDelta) -> ChildReport {
        ChildReport {
            rusage: delta.rusage,
            max_rss_kib: delta.max_rss_kib,
            vmstat: delta.vmstat,
            device: delta.device,
            ..Default::default()
        }
    }
}

/// One successful trial of one case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Index of the case in the plan.
    pub case: usize,
    /// Run number, from 0 (warm-up runs are not kept).
    pub run: u32,
    /// Position of this trial in the whole run's order (from 0).
    pub sequence: u64,
    /// setup + main loop + sync + teardown, ns.
    pub total_ns: u64,
    /// What the child measured.
    #[serde(flatten)]
    pub child: ChildReport,
    /// Fraction of the file's pages resident just before the trial.
    pub residency_before: f64,
    /// Fraction of the file's pages resident just after the trial.
    pub residency_after: f64,
    /// How residency was measured: `cachestat` or `mincore`.
    pub residency_source: String,
    /// How the cache state was prepared, e.g. `fadvise-dontneed` or `evict+seq-read`.
    pub cache_prepared_by: String,
    /// Whether the measured residency reached the asked-for state
    /// (cold: at most 1%; warm: at least 99%; as-is: always).
    pub cache_reached: bool,
    /// What else the machine did while the trial ran, and whether that
    /// makes it interfered (see [`crate::measure::interference`]); `None`
    /// with `--interference-threshold off` and in results written before
    /// it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interference: Option<crate::measure::interference::Interference>,
    /// 0 for the first trial of its (case, run); k for the k-th re-run of
    /// an interfered one (`--retry-interfered`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempt: u32,
    /// Why the statistics leave this sample out, set when the results are
    /// assembled (never in the journal): `retried` (a later attempt of the
    /// same run replaces it) or `interfered` (`--exclude-interfered`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
    /// An unprofiled control trial of a `--profile` run
    /// (`--profile-control`): run beside the profiled trial of the same run
    /// number, with the same cache preparation, to measure what profiling
    /// costs. Kept in the journal and the exports, never counted in the
    /// case's statistics (`excluded` is `profile-control`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub profile_control: bool,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Sample {
    /// The sample of `case`'s run `run` that `child` reports, its total
    /// time the sum of the report's phases (setup, loop, sync, teardown);
    /// the rest as for a first attempt that reached its cache state with
    /// nothing else recorded (residency 1 before and after, no source named,
    /// no interference). Callers set what they know with struct update
    /// syntax (`Sample { residency_before, ..Sample::new(case, run, child) }`),
    /// so a new field is one edit here.
    pub fn new(case: usize, run: u32, child: ChildReport) -> Sample {
        Sample {
            case,
            run,
            sequence: 0,
            total_ns: child.setup_ns + child.wall_ns + child.sync_ns + child.teardown_ns,
            child,
            residency_before: 1.0,
            residency_after: 1.0,
            residency_source: String::new(),
            cache_prepared_by: String::new(),
            cache_reached: true,
            interference: None,
            attempt: 0,
            excluded: None,
            profile_control: false,
        }
    }

    /// Whether the trial was found interfered when it ran.
    pub fn interfered(&self) -> bool {
        self.interference.as_ref().is_some_and(|i| i.interfered)
    }
}

/// A trial that did not produce a sample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrialFailure {
    /// Index of the case in the plan.
    pub case: usize,
    /// Run number (warm-ups count from 0 too, with `warmup` set).
    pub run: u32,
    /// Whether it was a warm-up trial.
    pub warmup: bool,
    /// Why it failed: the child's error line, or the signal that killed it (e.g. `killed by SIGBUS`).
    pub reason: String,
    /// 0 for the first trial of its (case, run); k when the k-th re-run of
    /// an interfered trial failed (`--retry-interfered`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempt: u32,
    /// Whether it was an unprofiled control trial (`--profile-control`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub profile_control: bool,
}

/// What one of the processes of a `--procs` trial measured.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcStat {
    /// Its setup + main loop + sync + teardown, ns.
    pub total_ns: u64,
    /// Its peak resident set, KiB.
    pub max_rss_kib: u64,
    /// Its proportional set size before teardown, KiB (`None` if unreadable).
    pub pss_kib: Option<u64>,
    /// Bytes it read from storage itself (`ru_inblock × 512` over setup +
    /// loop + teardown); `None` in results written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_bytes: Option<u64>,
}
