//! The CSV export: one row per sample, every raw counter, replaced atomically.
//!
//! Each row repeats its case's factors, and the statistics of its case and
//! of its comparison with its group's baseline (the same figures the JSON
//! export holds in `comparisons`, `statistics` and each case's
//! `interference`), so that the file can be loaded into a data frame and
//! grouped without joining anything. Absent values (options of methods that
//! do not map or do not write, vmstat counters that were not read, a
//! baseline's comparison columns, precision without `--precision`) are empty
//! cells. docs/csv.md describes every column; columns are only ever added at
//! the end.
use std::collections::HashMap;
use std::io;
use std::path::Path;

use crate::error::Result;
use crate::files::atomic::{write_atomically, SHARED_MODE};
use crate::results::Sample;
use crate::stats::stopping::GroupPrecision;
use crate::stats::{CaseResult, ComparisonResult, RunResults};

/// The header row, in column order.
pub const COLUMNS: [&str; 109] = [
    "case_id",
    "method_label",
    "method",
    "pattern",
    "block_size",
    "file_size",
    "workload",
    "cache",
    "warm_by",
    "populate",
    "advice",
    "share",
    "sync",
    "sync_call",
    "target",
    "size_with",
    "fill",
    "stdio_buffer",
    "iov",
    "depth",
    "uring_registered",
    "latency",
    "run",
    "sequence",
    "wall_ns",
    "setup_ns",
    "teardown_ns",
    "sync_ns",
    "total_ns",
    "user_ns",
    "sys_ns",
    "minflt",
    "majflt",
    "nvcsw",
    "nivcsw",
    "inblock",
    "oublock",
    "max_rss_kib",
    "bytes",
    "syscalls",
    "checksum",
    "residency_before",
    "residency_after",
    "residency_source",
    "cache_prepared_by",
    "cache_reached",
    "latency_ops",
    "latency_p50_ns",
    "latency_p90_ns",
    "latency_p99_ns",
    "latency_p999_ns",
    "latency_max_ns",
    "scale_factor",
    "threads",
    "thread_mode",
    "thread_ns_max",
    "procs",
    "proc_pss_kib",
    "pgfault",
    "pgmajfault",
    "pgpgin",
    "pgpgout",
    "attempt",
    "excluded",
    "interfered",
    "interference_reasons",
    "window_ns",
    "own_cpu_ns",
    "other_cpu_cores",
    "steal_ns",
    "psi_cpu_some_us",
    "psi_io_some_us",
    "psi_memory_some_us",
    "own_read_bytes",
    "own_write_bytes",
    "other_device_read_bytes",
    "other_device_write_bytes",
    "other_runs",
    "device_read_bytes",
    "group",
    "compared_with",
    "throughput_ratio",
    "ratio_ci95_low",
    "ratio_ci95_high",
    "pairs",
    "verdict",
    "p_value",
    "p_adjusted",
    "fdr_method",
    "fdr_family",
    "precision_target",
    "precision_reached",
    "precision_half_width",
    "precision_pairs",
    "precision_stopped_by",
    "case_runs",
    "case_interfered_trials",
    "case_interfered_share",
    "exclude_interfered",
    "open_sync",
    "msync",
    "rate",
    "think_ns",
    "read_share",
    "files",
    "file_size_min",
    "file_size_max",
    "bytes_written",
    "files_opened",
];

/// The vmstat deltas exported, in column order (before the interference record's).
const VMSTAT: [&str; 4] = ["pgfault", "pgmajfault", "pgpgin", "pgpgout"];

/// `cell` as a spreadsheet may read it safely: a cell that starts with
/// `=`, `+`, `-`, `@`, a tab or a carriage return and is not a number (a
/// file name, a label, a trace path) would be taken for a formula, so it
/// gets a leading `'`. Numbers, negative ones included, stay numbers.
pub fn neutralise(cell: String) -> String {
    let risky = cell.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if risky && cell.parse::<f64>().is_err() {
        format!("'{cell}")
    } else {
        cell
    }
}

/// The one way faultline writes a CSV (the samples, the timeline, the
/// claims): a header, then rows whose every cell goes through
/// [`neutralise`].
pub struct Rows<W: io::Write>(::csv::Writer<W>);

impl<W: io::Write> Rows<W> {
    /// A CSV on `w` that starts with `header`.
    pub fn new(w: W, header: &[&str]) -> io::Result<Self> {
        let mut out = ::csv::Writer::from_writer(w);
        out.write_record(header).map_err(io::Error::from)?;
        Ok(Rows(out))
    }

    /// One row, each cell neutralised.
    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) -> io::Result<()> {
        self.0
            .write_record(cells.into_iter().map(|c| neutralise(c.into())))
            .map_err(io::Error::from)
    }

    /// Flushes what was written.
    pub fn finish(mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Writes one row per sample of every case, under a header of [`COLUMNS`],
/// atomically. Checksums are written in hex (`0x...`), as faultline prints
/// them. Every cell goes through [`neutralise`] ([`Rows`]).
pub fn write_csv(results: &RunResults, path: &Path) -> Result<()> {
    write_atomically(path, SHARED_MODE, |w| {
        let mut out = Rows::new(w, &COLUMNS)?;
        // Each case's comparison and each group's precision, looked up by
        // key: linear in the cases.
        let comparisons: HashMap<usize, &ComparisonResult> = results
            .comparisons
            .iter()
            .rev()
            .map(|c| (c.other, c))
            .collect();
        let precision: HashMap<&str, &GroupPrecision> = results
            .statistics
            .precision
            .iter()
            .rev()
            .map(|g| (g.group.as_str(), g))
            .collect();
        for case in &results.cases {
            let statistics = case_statistics(results, case, &comparisons, &precision);
            let later = later_case_columns(&case.case);
            for sample in &case.samples {
                let mut row = record(case, sample);
                row.extend(statistics.iter().cloned());
                row.extend(later.iter().cloned());
                row.extend(later_sample_columns(sample));
                out.row(row)?;
            }
        }
        out.finish()
    })
}

/// The case's columns added after the statistics (columns are only ever
/// added at the end): `open_sync`, `msync`, `rate`, `think_ns`,
/// `read_share`, `files`, `file_size_min`, `file_size_max`.
fn later_case_columns(c: &crate::plan::Case) -> [String; 8] {
    fn opt<T: ToString>(x: Option<T>) -> String {
        x.map(|x| x.to_string()).unwrap_or_default()
    }
    [
        opt(c.open_sync),
        opt(c.msync),
        opt(c.pace.and_then(|p| p.rate)),
        opt(c.pace.and_then(|p| p.think_ns)),
        opt(c.read_share),
        opt(c.files.map(|f| f.count)),
        opt(c.files.map(|f| f.min_size)),
        opt(c.files.map(|f| f.max_size)),
    ]
}

/// The sample's columns added after the case's later ones:
/// `bytes_written` (a mixed case's) and `files_opened` (a file set's).
fn later_sample_columns(s: &Sample) -> [String; 2] {
    let opt = |x: Option<u64>| x.map(|x| x.to_string()).unwrap_or_default();
    [opt(s.child.bytes_written), opt(s.child.files_opened)]
}

/// A value's name as the JSON export spells it (`bh`, `within-noise`, `max-runs`).
fn serde_name(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        _ => String::new(),
    }
}

/// The statistics columns of `case`'s rows (from `group` on): its group,
/// its comparison with the group's baseline, the run's adjustment, its
/// group's precision, and how interference touched its trials.
fn case_statistics(
    results: &RunResults,
    case: &CaseResult,
    comparisons: &HashMap<usize, &ComparisonResult>,
    precisions: &HashMap<&str, &GroupPrecision>,
) -> Vec<String> {
    fn opt<T: ToString>(x: Option<T>) -> String {
        x.map(|x| x.to_string()).unwrap_or_default()
    }
    let group = case.case.group_label();
    let comparison = comparisons.get(&case.id).copied();
    let ratio = comparison.map(|c| &c.throughput_ratio);
    let precision = precisions.get(group.as_str()).copied();
    let interference = case.interference.as_ref();
    let exclude = results.settings.interference.map(|i| i.exclude);
    vec![
        group.clone(),
        opt(comparison.map(|c| c.baseline)),
        opt(ratio.map(|r| r.ratio)),
        opt(ratio.map(|r| r.ci95_low)),
        opt(ratio.map(|r| r.ci95_high)),
        opt(ratio.map(|r| r.pairs)),
        comparison.map_or_else(String::new, |c| serde_name(&c.verdict)),
        opt(comparison.and_then(|c| c.p_value)),
        opt(comparison.and_then(|c| c.p_adjusted)),
        serde_name(&results.statistics.adjustment),
        results.statistics.family.to_string(),
        opt(precision.map(|g| g.target)),
        opt(precision.map(|g| g.reached)),
        opt(precision
            .and_then(|g| g.half_width)
            .filter(|w| w.is_finite())),
        opt(precision.map(|g| g.pairs)),
        precision.map_or_else(String::new, |g| serde_name(&g.stopped_by)),
        opt(case.summary.as_ref().map(|s| s.runs)),
        opt(interference.map(|i| i.interfered)),
        opt(interference.map(|i| i.interfered as f64 / i.trials.max(1) as f64)),
        opt(exclude),
    ]
}

fn record(case: &CaseResult, s: &Sample) -> Vec<String> {
    fn opt<T: ToString>(x: Option<T>) -> String {
        x.map(|x| x.to_string()).unwrap_or_default()
    }
    let c = &case.case;
    let r = &s.child.rusage;
    let mut row = vec![
        case.id.to_string(),
        case.label.clone(),
        c.method.to_string(),
        c.pattern.to_string(),
        c.block_size.to_string(),
        c.file_size.to_string(),
        c.workload.to_string(),
        c.cache.to_string(),
        c.warm_by.to_string(),
        opt(c.populate),
        opt(c.advice),
        opt(c.share),
        opt(c.sync),
        opt(c.sync_call),
        opt(c.target),
        opt(c.size_with),
        opt(c.fill),
        opt(c.io.stdio_buffer),
        opt(c.io.iov),
        opt(c.io.depth),
        opt(c.io.registered),
        c.latency.to_string(),
        s.run.to_string(),
        s.sequence.to_string(),
        s.child.wall_ns.to_string(),
        s.child.setup_ns.to_string(),
        s.child.teardown_ns.to_string(),
        s.child.sync_ns.to_string(),
        s.total_ns.to_string(),
        r.user_ns.to_string(),
        r.sys_ns.to_string(),
        r.minflt.to_string(),
        r.majflt.to_string(),
        r.nvcsw.to_string(),
        r.nivcsw.to_string(),
        r.inblock.to_string(),
        r.oublock.to_string(),
        s.child.max_rss_kib.to_string(),
        s.child.bytes.to_string(),
        s.child.syscalls.to_string(),
        format!("{:#018x}", s.child.checksum),
        s.residency_before.to_string(),
        s.residency_after.to_string(),
        s.residency_source.clone(),
        s.cache_prepared_by.clone(),
        s.cache_reached.to_string(),
    ];
    let latency = s.child.latency;
    row.extend([
        opt(latency.map(|l| l.ops)),
        opt(latency.map(|l| l.p50_ns)),
        opt(latency.map(|l| l.p90_ns)),
        opt(latency.map(|l| l.p99_ns)),
        opt(latency.map(|l| l.p999_ns)),
        opt(latency.map(|l| l.max_ns)),
        opt(c.scale),
        opt(c.threads.map(|t| t.count)),
        opt(c.threads.map(|t| t.mode)),
        opt(s.child.thread_ns.iter().max()),
        opt(c.procs),
        // Each process's PSS, `;`-separated (a cell of its own, not a column each).
        s.child
            .procs
            .iter()
            .map(|p| p.pss_kib.map_or(String::new(), |k| k.to_string()))
            .collect::<Vec<_>>()
            .join(";"),
    ]);
    row.extend(VMSTAT.iter().map(|k| opt(s.child.vmstat.get(*k))));
    // The interference record (docs/interference.md): empty cells when it
    // was off; `interference_reasons` `;`-separated.
    let i = s.interference.as_ref();
    let psi = |p: Option<crate::measure::psi::StallDelta>| opt(p.map(|p| p.some_us));
    row.extend([
        s.attempt.to_string(),
        s.excluded.clone().unwrap_or_default(),
        opt(i.map(|i| i.interfered)),
        i.map(|i| i.reasons.join(";")).unwrap_or_default(),
        opt(i.map(|i| i.window_ns)),
        opt(i.map(|i| i.own_cpu_ns)),
        opt(i.and_then(|i| i.other_cpu_cores)),
        opt(i.and_then(|i| i.steal_ns)),
        psi(i.and_then(|i| i.psi_cpu)),
        psi(i.and_then(|i| i.psi_io)),
        psi(i.and_then(|i| i.psi_memory)),
        opt(i.map(|i| i.own_read_bytes)),
        opt(i.map(|i| i.own_write_bytes)),
        opt(i.and_then(|i| i.other_device_read_bytes)),
        opt(i.and_then(|i| i.other_device_write_bytes)),
        opt(i.map(|i| i.other_runs)),
        // The file's device, device-wide, over the trial's measured part.
        opt(s.child.device.map(|d| d.read_bytes)),
    ]);
    row
}

#[cfg(test)]
mod neutralise_tests {
    use super::neutralise;

    #[test]
    fn formulas_are_neutralised_and_numbers_kept() {
        for (cell, out) in [
            ("=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"),
            ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "'\t=1"),
            ("-12.5", "-12.5"),
            ("-1e-9", "-1e-9"),
            ("read", "read"),
            ("", ""),
        ] {
            assert_eq!(neutralise(cell.to_string()), out, "{cell:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    fn read_back(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
        let mut reader = ::csv::Reader::from_path(path).unwrap();
        let header = reader.headers().unwrap().iter().map(String::from).collect();
        let rows = reader
            .records()
            .map(|r| r.unwrap().iter().map(String::from).collect())
            .collect();
        (header, rows)
    }

    fn cell<'a>(header: &[String], row: &'a [String], column: &str) -> &'a str {
        &row[header.iter().position(|h| h == column).unwrap()]
    }

    #[test]
    fn one_row_per_sample_under_the_header() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples.csv");
        let results = fixtures::results();
        write_csv(&results, &path).unwrap();
        let (header, rows) = read_back(&path);
        assert_eq!(header, COLUMNS);
        let vmstat = COLUMNS.iter().position(|c| *c == VMSTAT[0]).unwrap();
        assert_eq!(COLUMNS[vmstat..vmstat + VMSTAT.len()], VMSTAT);
        assert_eq!(COLUMNS[vmstat + VMSTAT.len()], "attempt");
        let samples: usize = results.cases.iter().map(|c| c.samples.len()).sum();
        assert_eq!(rows.len(), samples);
        assert_eq!(rows.len(), 6);
        assert!(rows.iter().all(|r| r.len() == COLUMNS.len()));

        let read: Vec<_> = rows
            .iter()
            .filter(|r| cell(&header, r, "method") == "read")
            .collect();
        let mmap: Vec<_> = rows
            .iter()
            .filter(|r| cell(&header, r, "method") == "mmap")
            .collect();
        assert_eq!((read.len(), mmap.len()), (3, 3));

        let r = read[1];
        assert_eq!(cell(&header, r, "case_id"), "0");
        assert_eq!(cell(&header, r, "method_label"), "read");
        assert_eq!(cell(&header, r, "pattern"), "seq");
        assert_eq!(cell(&header, r, "block_size"), "16384");
        assert_eq!(cell(&header, r, "cache"), "warm");
        assert_eq!(cell(&header, r, "populate"), "", "read has no mmap options");
        assert_eq!(cell(&header, r, "run"), "1");
        assert_eq!(cell(&header, r, "wall_ns"), "500000000");
        assert_eq!(cell(&header, r, "minflt"), "16384");
        assert_eq!(cell(&header, r, "syscalls"), "65536");
        assert_eq!(cell(&header, r, "checksum"), "0x00000000deadbeef");
        assert_eq!(cell(&header, r, "residency_before"), "1");
        assert_eq!(cell(&header, r, "cache_reached"), "true");
        assert_eq!(cell(&header, r, "pgfault"), "16400");
        assert_eq!(cell(&header, r, "pgpgin"), "0");
        assert_eq!(
            cell(&header, r, "pgmajfault"),
            "",
            "absent vmstat counters are empty"
        );

        assert_eq!(
            cell(&header, r, "depth"),
            "",
            "read has no io_uring options"
        );
        assert_eq!(cell(&header, r, "latency"), "false");
        assert_eq!(
            cell(&header, r, "latency_p99_ns"),
            "",
            "no latency recorded"
        );
        assert_eq!(cell(&header, mmap[0], "populate"), "none");
        assert_eq!(cell(&header, mmap[0], "share"), "shared");
        assert_eq!(cell(&header, r, "sync"), "", "read does not write");
        assert_eq!(cell(&header, r, "sync_ns"), "0");
    }

    #[test]
    fn write_cases_fill_their_option_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples.csv");
        let mut results = fixtures::results();
        results.cases[1].case = fixtures::case(crate::method::MethodKind::MmapWrite);
        results.cases[1].case.sync = Some(crate::method::SyncPolicy::End);
        results.cases[1].samples[0].child.sync_ns = 1234;
        write_csv(&results, &path).unwrap();
        let (header, rows) = read_back(&path);
        let row = &rows[3];
        assert_eq!(cell(&header, row, "method"), "mmap-write");
        assert_eq!(cell(&header, row, "sync"), "end");
        assert_eq!(cell(&header, row, "sync_call"), "");
        assert_eq!(cell(&header, row, "target"), "fresh");
        assert_eq!(cell(&header, row, "size_with"), "truncate");
        assert_eq!(cell(&header, row, "fill"), "pattern");
        assert_eq!(cell(&header, row, "workload"), "fill");
        assert_eq!(cell(&header, row, "sync_ns"), "1234");
    }

    #[test]
    fn method_options_and_latency_have_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples.csv");
        let mut results = fixtures::results();
        let case = &mut results.cases[1];
        case.case.io.depth = Some(32);
        case.case.io.registered = Some(true);
        case.case.latency = true;
        case.samples[0].child.latency = Some(crate::measure::latency::LatencyPercentiles {
            ops: 65_536,
            p50_ns: 1_500,
            p90_ns: 2_000,
            p99_ns: 9_000,
            p999_ns: 40_000,
            max_ns: 700_000,
        });
        write_csv(&results, &path).unwrap();
        let (header, rows) = read_back(&path);
        let row = &rows[3];
        assert_eq!(cell(&header, row, "depth"), "32");
        assert_eq!(cell(&header, row, "uring_registered"), "true");
        assert_eq!(cell(&header, row, "latency"), "true");
        assert_eq!(cell(&header, row, "latency_ops"), "65536");
        assert_eq!(cell(&header, row, "latency_p50_ns"), "1500");
        assert_eq!(cell(&header, row, "latency_p999_ns"), "40000");
        assert_eq!(cell(&header, row, "latency_max_ns"), "700000");
        assert_eq!(cell(&header, &rows[4], "latency_p50_ns"), "");
    }

    #[test]
    fn every_column_is_described_in_the_docs() {
        let doc = include_str!("../../docs/csv.md");
        for column in COLUMNS {
            assert!(
                doc.contains(&format!("| `{column}` |")),
                "docs/csv.md has no row for {column}"
            );
        }
    }

    #[test]
    fn each_row_carries_its_case_s_statistics() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples.csv");
        let mut results = fixtures::results();
        results.comparisons[0].p_value = Some(0.001);
        results.comparisons[0].p_adjusted = Some(0.002);
        write_csv(&results, &path).unwrap();
        let (header, rows) = read_back(&path);
        let (read, mmap) = (&rows[0], &rows[3]);
        assert_eq!(cell(&header, mmap, "compared_with"), "0");
        assert_eq!(cell(&header, mmap, "verdict"), "faster");
        assert_eq!(cell(&header, mmap, "p_adjusted"), "0.002");
        assert_eq!(cell(&header, mmap, "fdr_method"), "bh");
        assert_eq!(cell(&header, read, "compared_with"), "", "the baseline");
        assert_eq!(cell(&header, read, "verdict"), "");
        assert_eq!(cell(&header, read, "fdr_method"), "bh");
        assert_eq!(
            cell(&header, read, "precision_target"),
            "",
            "no --precision"
        );
        assert_eq!(cell(&header, read, "group"), results.comparisons[0].group);
    }

    #[test]
    fn leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples.csv");
        write_csv(&fixtures::results(), &path).unwrap();
        write_csv(&fixtures::results(), &path).unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("samples.csv")]);
    }

    #[test]
    fn labels_with_commas_are_quoted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples.csv");
        let mut results = fixtures::results();
        results.cases[1].label = "mmap(populate=map,advice=random)".to_string();
        write_csv(&results, &path).unwrap();
        let (header, rows) = read_back(&path);
        assert_eq!(
            cell(&header, &rows[3], "method_label"),
            "mmap(populate=map,advice=random)"
        );
    }
}
