//! The timeline CSV: one row per second of every duration-bounded trial
//! ([`crate::measure::timeline`]), written beside the per-sample CSV as
//! `<stem>-timeline.csv`, replaced atomically. Absent counters are empty cells.
use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::files::atomic::{write_atomically, SHARED_MODE};
use crate::results::RunResults;

/// The header row, in column order.
pub const COLUMNS: [&str; 16] = [
    "case",
    "method",
    "run",
    "sequence",
    "second",
    "interval_s",
    "reads",
    "reads_per_s",
    "tlb_shootdowns_per_s",
    "major_faults_per_s",
    "device_read_bytes_per_s",
    "cgroup_bytes",
    "memory_budget_bytes",
    "own_read_bytes_per_s",
    "memory_budget_kind",
    "pattern",
];

/// Where the timeline CSV of the per-sample CSV at `csv` goes: `dir/stem-timeline.csv`.
pub fn path_beside(csv: &Path) -> PathBuf {
    let stem = csv
        .file_stem()
        .map_or("results".into(), |s| s.to_string_lossy());
    csv.with_file_name(format!("{stem}-timeline.csv"))
}

/// Whether any sample has a timeline.
pub fn has_timelines(results: &RunResults) -> bool {
    results
        .cases
        .iter()
        .any(|c| c.samples.iter().any(|s| !s.child.timeline.is_empty()))
}

/// Writes one row per timeline point of every sample, atomically.
pub fn write_timeline_csv(results: &RunResults, path: &Path) -> Result<()> {
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
    write_atomically(path, SHARED_MODE, |w| {
        let mut out = super::csv_rows::Rows::new(w, &COLUMNS)?;
        for case in &results.cases {
            for s in &case.samples {
                for p in &s.child.timeline {
                    let row = [
                        case.id.to_string(),
                        case.label.clone(),
                        s.run.to_string(),
                        s.sequence.to_string(),
                        p.second.to_string(),
                        p.interval_s.to_string(),
                        p.reads.to_string(),
                        p.reads_per_s.to_string(),
                        opt(p.tlb_shootdowns_per_s),
                        p.major_faults_per_s.to_string(),
                        opt(p.device_read_bytes_per_s),
                        p.cgroup_bytes.map_or(String::new(), |b| b.to_string()),
                        case.case
                            .memory_budget
                            .map_or(String::new(), |b| b.limit_bytes.to_string()),
                        opt(p.own_read_bytes_per_s),
                        case.case
                            .memory_budget
                            .map_or(String::new(), |b| b.kind.describe().to_string()),
                        case.case.pattern_label(),
                    ];
                    out.row(row)?;
                }
            }
        }
        out.finish()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timeline_csv_sits_beside_the_csv() {
        assert_eq!(
            path_beside(Path::new("/out/r.csv")),
            PathBuf::from("/out/r-timeline.csv")
        );
        assert_eq!(path_beside(Path::new("r")), PathBuf::from("r-timeline.csv"));
    }
}
