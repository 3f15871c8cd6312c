//! /proc/vmstat snapshots and the deltas faultline records.
use std::collections::BTreeMap;

/// A reading of /proc/vmstat.
#[derive(Clone, Debug, Default)]
pub struct VmstatSnapshot(pub BTreeMap<String, i64>);

/// Reads /proc/vmstat.
pub fn snapshot() -> std::io::Result<VmstatSnapshot> {
    todo!("measure helper")
}

impl VmstatSnapshot {
    /// Deltas since `earlier` of pgfault, pgmajfault, pgpgin, pgpgout, the
    /// pgscan* and pgsteal* families and workingset_refault_file.
    pub fn delta_since(&self, earlier: &VmstatSnapshot) -> BTreeMap<String, i64> {
        let _ = earlier;
        todo!("measure helper")
    }
}
