//! One case's summary as the reports and exports read it: its times,
//! throughput and counters over the counted samples, with the latency,
//! spread, access, profile and profiling-cost parts when they were
//! measured. Computed by [`crate::analysis::case_summary`].
use serde::{Deserialize, Serialize};

use super::access::{FootprintSummary, TimelineMean};
use super::latency::LatencySummary;
use super::profile::ProfileSummary;
use super::profile_cost::ProfileCost;
use super::spread::Spread;
use crate::stats::Summary;

/// Summary of one case's samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseSummary {
    /// Number of samples.
    pub runs: usize,
    /// The compared time (per the plan's metric), ns.
    pub time_ns: Summary,
    /// Main loop wall time, ns.
    pub loop_ns: Summary,
    /// Setup time, ns.
    pub setup_ns: Summary,
    /// Teardown time, ns.
    pub teardown_ns: Summary,
    /// Sync time (fsync, fdatasync, msync), ns: 0 for cases that do not sync;
    /// `None` in results written before write methods existed.
    #[serde(default)]
    pub sync_ns: Option<Summary>,
    /// Bytes per second over the compared time.
    pub throughput_bps: Summary,
    /// User CPU time, ns.
    pub user_ns: Summary,
    /// System CPU time, ns.
    pub sys_ns: Summary,
    /// Mean counters per MiB of bytes delivered.
    pub per_mib: PerMib,
    /// Bytes the trial's own process read from storage per byte delivered
    /// ([`own_read_bytes`](crate::analysis::case_summary::own_read_bytes):
    /// its own accounting, so another process's reads are never in it);
    /// `None` without samples that know it.
    pub read_amplification: Option<f64>,
    /// Device read requests per MiB delivered; `None` without a block device.
    #[serde(default)]
    pub device_reads_per_mib: Option<f64>,
    /// Mean size of a device read request, bytes; `None` without device reads.
    #[serde(default)]
    pub device_read_request_bytes: Option<f64>,
    /// Mean residency before the trial, 0 to 1.
    pub residency_before: f64,
    /// Mean residency after the trial, 0 to 1.
    pub residency_after: f64,
    /// Latency percentiles across the trials, when they were recorded (`--latency`).
    #[serde(default)]
    pub latency: Option<Box<LatencySummary>>,
    /// How the threads of its trials differed (`--threads`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<Box<Spread>>,
    /// How the processes of its trials differed (`--procs`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub procs: Option<Box<Spread>>,
    /// Operations (blocks, or a trace's reads) per second of main loop;
    /// absent in results from before it was counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops_per_s: Option<Summary>,
    /// Distinct blocks (pages, for a trace) the trials touched, on average.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub footprint: Option<FootprintSummary>,
    /// The mean per-second timeline of duration-bounded trials; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<TimelineMean>,
    /// Where `read_amplification`'s bytes come from
    /// ([`OWN_BYTES_SOURCE`](crate::analysis::case_summary::OWN_BYTES_SOURCE));
    /// absent in results written before it was said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_bytes_source: Option<String>,
    /// Bytes the file's block device read per byte delivered, device-wide
    /// (every process's reads count): context, never the trial's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_wide_read_amplification: Option<f64>,
    /// Where its main loops' CPU time went (`--profile`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Box<ProfileSummary>>,
    /// What profiling cost its trials, from its unprofiled control trials
    /// (`--profile-control`), set when the results are assembled; absent
    /// without control trials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_cost: Option<ProfileCost>,
}

/// Mean counters per MiB delivered to the workload.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PerMib {
    /// Minor faults per MiB.
    pub minflt: f64,
    /// Major faults per MiB.
    pub majflt: f64,
    /// I/O syscalls per MiB.
    pub syscalls: f64,
    /// System CPU ms per MiB.
    pub sys_ms: f64,
    /// User CPU ms per MiB.
    pub user_ms: f64,
    /// Voluntary context switches per MiB.
    pub nvcsw: f64,
    /// Involuntary context switches per MiB.
    pub nivcsw: f64,
}

impl CaseSummary {
    /// Bytes one trial delivered, on average (mean throughput × mean
    /// compared time); `None` when either is not a positive finite number.
    pub fn bytes_per_trial(&self) -> Option<f64> {
        let bytes = self.throughput_bps.mean * self.time_ns.mean / 1e9;
        (bytes.is_finite() && bytes > 0.0).then_some(bytes)
    }
}
