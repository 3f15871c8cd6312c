//! What a case's trials touched and when: the footprint and the
//! per-second timeline (computed by [`crate::analysis::access`]).
use serde::{Deserialize, Serialize};

/// The footprint of a case's trials, averaged (a generated order's is the
/// same in every trial; a timed trial's grows with what it managed to read).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FootprintSummary {
    /// Mean distinct units touched.
    pub distinct: f64,
    /// Units in the file.
    pub units: u64,
    /// Bytes per unit: the block, or a page for a trace.
    pub unit_bytes: u64,
    /// Mean share of the file's units touched, 0 to 1.
    pub share: f64,
    /// Mean bytes of the file in the units touched.
    pub bytes: f64,
}

/// One second of a case's timed trials, averaged over the trials that
/// reached it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimelineMean {
    /// The second (1, 2, ...).
    pub second: u32,
    /// Trials that reached it.
    pub trials: usize,
    /// Mean reads per second.
    pub reads_per_s: f64,
    /// Mean major faults per second.
    pub major_faults_per_s: f64,
    /// Mean TLB shootdowns per second (system-wide), when every trial had them.
    pub tlb_shootdowns_per_s: Option<f64>,
    /// Mean bytes per second the trial itself caused to be read from
    /// storage, when every trial had them.
    pub own_read_bytes_per_s: Option<f64>,
    /// Mean bytes per second read from the file's device (by anyone).
    pub device_read_bytes_per_s: Option<f64>,
    /// Mean page cache charged to the trial's cgroup at the end of the second.
    pub cgroup_bytes: Option<f64>,
}
