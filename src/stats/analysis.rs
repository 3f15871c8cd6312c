//! Case summaries and comparisons computed from samples.
use serde::{Deserialize, Serialize};

use super::{RatioEstimate, Summary};
use crate::plan::Metric;
use crate::sample::Sample;

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
    /// Bytes per second over the compared time.
    pub throughput_bps: Summary,
    /// User CPU time, ns.
    pub user_ns: Summary,
    /// System CPU time, ns.
    pub sys_ns: Summary,
    /// Mean counters per MiB of bytes delivered.
    pub per_mib: PerMib,
    /// Bytes read from devices (vmstat pgpgin) per byte delivered; `None`
    /// when vmstat was unavailable.
    pub read_amplification: Option<f64>,
    /// Mean residency before the trial, 0 to 1.
    pub residency_before: f64,
    /// Mean residency after the trial, 0 to 1.
    pub residency_after: f64,
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

/// Summarises the samples of one case; `None` when there are none.
pub fn summarize_case(samples: &[Sample], metric: Metric) -> Option<CaseSummary> {
    let _ = (samples, metric);
    todo!("stats helper")
}

/// Throughput of `other` over `baseline`, paired by run number.
pub fn compare_cases(baseline: &[Sample], other: &[Sample], metric: Metric) -> Option<RatioEstimate> {
    let _ = (baseline, other, metric);
    todo!("stats helper")
}
