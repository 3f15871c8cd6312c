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
use std::path::Path;

use crate::error::Result;
use crate::files::atomic::{write_atomically, SHARED_MODE};
use crate::plan::factor_table;
use crate::results::{CaseResult, ComparisonResult, GroupPrecision, RunResults, Sample};

use super::csv_rows::Rows;

/// What one row's cells are taken from: a sample, its case, and the
/// statistics of its case (looked up once per case).
pub struct Row<'a> {
    case: &'a CaseResult,
    sample: &'a Sample,
    statistics: &'a CaseStatistics<'a>,
}

/// The statistics a case's rows repeat: its group, its comparison with the
/// group's baseline, its group's precision, and the run's adjustment.
struct CaseStatistics<'a> {
    results: &'a RunResults,
    group: String,
    comparison: Option<&'a ComparisonResult>,
    precision: Option<&'a GroupPrecision>,
}

impl Row<'_> {
    fn c(&self) -> &crate::plan::Case {
        &self.case.case
    }

    fn interference(&self) -> Option<&crate::measure::interference::Interference> {
        self.sample.interference.as_ref()
    }

    fn ratio(&self) -> Option<&crate::stats::RatioEstimate> {
        self.statistics.comparison.map(|c| &c.throughput_ratio)
    }
}

/// How a column's cell is computed.
#[derive(Clone, Copy)]
enum Cell {
    /// From the row.
    Of(fn(&Row<'_>) -> String),
    /// The case's factor column of the column's name, as the factor table
    /// declares it ([`crate::plan::factor_table::column`]).
    Factor,
    /// The sample's vmstat delta of the column's name (empty when not read).
    Vmstat,
}

/// One column: its name in the header and how its cell is computed,
/// declared together so that a cell cannot land under another's header.
#[derive(Clone, Copy)]
pub struct Column {
    /// The header's name for it (docs/csv.md has a row for each).
    pub name: &'static str,
    cell: Cell,
}

impl Column {
    const fn of(name: &'static str, get: fn(&Row<'_>) -> String) -> Column {
        Column {
            name,
            cell: Cell::Of(get),
        }
    }

    const fn factor(name: &'static str) -> Column {
        Column {
            name,
            cell: Cell::Factor,
        }
    }

    const fn vmstat(name: &'static str) -> Column {
        Column {
            name,
            cell: Cell::Vmstat,
        }
    }

    /// How the column's cell is computed, with a factor column looked up
    /// in the factor table (`None`: the table has no such column).
    fn getter(&self) -> Option<Getter> {
        Some(match self.cell {
            Cell::Of(get) => Getter::Row(get),
            Cell::Factor => Getter::Case(factor_table::column(self.name)?.get),
            Cell::Vmstat => Getter::Vmstat(self.name),
        })
    }
}

/// A column's cell computation, resolved once per export.
#[derive(Clone, Copy)]
enum Getter {
    Row(fn(&Row<'_>) -> String),
    Case(fn(&crate::plan::Case) -> String),
    Vmstat(&'static str),
}

impl Getter {
    fn cell(self, row: &Row<'_>) -> String {
        match self {
            Getter::Row(get) => get(row),
            Getter::Case(get) => get(row.c()),
            Getter::Vmstat(name) => opt(row.sample.child.vmstat.get(name)),
        }
    }
}

/// An optional value's cell: empty when absent.
fn opt<T: ToString>(x: Option<T>) -> String {
    x.map(|x| x.to_string()).unwrap_or_default()
}

/// The columns, in order: each one's name with its value. Columns are only
/// ever added at the end.
pub const COLUMNS: &[Column] = &[
    Column::of("case_id", |r| r.case.id.to_string()),
    Column::of("method_label", |r| r.case.label.clone()),
    Column::factor("method"),
    Column::factor("pattern"),
    Column::factor("block_size"),
    Column::factor("file_size"),
    Column::factor("workload"),
    Column::factor("cache"),
    Column::factor("warm_by"),
    Column::factor("populate"),
    Column::factor("advice"),
    Column::factor("share"),
    Column::factor("sync"),
    Column::factor("sync_call"),
    Column::factor("target"),
    Column::factor("size_with"),
    Column::factor("fill"),
    Column::factor("stdio_buffer"),
    Column::factor("iov"),
    Column::factor("depth"),
    Column::factor("uring_registered"),
    Column::factor("latency"),
    Column::of("run", |r| r.sample.run.to_string()),
    Column::of("sequence", |r| r.sample.sequence.to_string()),
    Column::of("wall_ns", |r| r.sample.child.wall_ns.to_string()),
    Column::of("setup_ns", |r| r.sample.child.setup_ns.to_string()),
    Column::of("teardown_ns", |r| r.sample.child.teardown_ns.to_string()),
    Column::of("sync_ns", |r| r.sample.child.sync_ns.to_string()),
    Column::of("total_ns", |r| r.sample.total_ns.to_string()),
    Column::of("user_ns", |r| r.sample.child.rusage.user_ns.to_string()),
    Column::of("sys_ns", |r| r.sample.child.rusage.sys_ns.to_string()),
    Column::of("minflt", |r| r.sample.child.rusage.minflt.to_string()),
    Column::of("majflt", |r| r.sample.child.rusage.majflt.to_string()),
    Column::of("nvcsw", |r| r.sample.child.rusage.nvcsw.to_string()),
    Column::of("nivcsw", |r| r.sample.child.rusage.nivcsw.to_string()),
    Column::of("inblock", |r| r.sample.child.rusage.inblock.to_string()),
    Column::of("oublock", |r| r.sample.child.rusage.oublock.to_string()),
    Column::of("max_rss_kib", |r| r.sample.child.max_rss_kib.to_string()),
    Column::of("bytes", |r| r.sample.child.bytes.to_string()),
    Column::of("syscalls", |r| r.sample.child.syscalls.to_string()),
    // Checksums in hex, as faultline prints them.
    Column::of("checksum", |r| format!("{:#018x}", r.sample.child.checksum)),
    Column::of("residency_before", |r| {
        r.sample.residency_before.to_string()
    }),
    Column::of("residency_after", |r| r.sample.residency_after.to_string()),
    Column::of("residency_source", |r| r.sample.residency_source.clone()),
    Column::of("cache_prepared_by", |r| r.sample.cache_prepared_by.clone()),
    Column::of("cache_reached", |r| r.sample.cache_reached.to_string()),
    Column::of("latency_ops", |r| {
        opt(r.sample.child.latency.map(|l| l.ops))
    }),
    Column::of("latency_p50_ns", |r| {
        opt(r.sample.child.latency.map(|l| l.p50_ns))
    }),
    Column::of("latency_p90_ns", |r| {
        opt(r.sample.child.latency.map(|l| l.p90_ns))
    }),
    Column::of("latency_p99_ns", |r| {
        opt(r.sample.child.latency.map(|l| l.p99_ns))
    }),
    Column::of("latency_p999_ns", |r| {
        opt(r.sample.child.latency.map(|l| l.p999_ns))
    }),
    Column::of("latency_max_ns", |r| {
        opt(r.sample.child.latency.map(|l| l.max_ns))
    }),
    Column::factor("scale_factor"),
    Column::factor("threads"),
    Column::factor("thread_mode"),
    Column::of("thread_ns_max", |r| {
        opt(r.sample.child.thread_ns.iter().max())
    }),
    Column::factor("procs"),
    // Each process's PSS, `;`-separated (a cell of its own, not a column each).
    Column::of("proc_pss_kib", |r| {
        let pss = r.sample.child.procs.iter();
        pss.map(|p| p.pss_kib.map_or(String::new(), |k| k.to_string()))
            .collect::<Vec<_>>()
            .join(";")
    }),
    Column::vmstat("pgfault"),
    Column::vmstat("pgmajfault"),
    Column::vmstat("pgpgin"),
    Column::vmstat("pgpgout"),
    // The interference record (docs/interference.md): empty cells when it
    // was off; `interference_reasons` `;`-separated.
    Column::of("attempt", |r| r.sample.attempt.to_string()),
    Column::of("excluded", |r| {
        r.sample.excluded.clone().unwrap_or_default()
    }),
    Column::of("interfered", |r| {
        opt(r.interference().map(|i| i.interfered))
    }),
    Column::of("interference_reasons", |r| {
        let reasons = r.interference().map(|i| i.reasons.join(";"));
        reasons.unwrap_or_default()
    }),
    Column::of("window_ns", |r| opt(r.interference().map(|i| i.window_ns))),
    Column::of("own_cpu_ns", |r| {
        opt(r.interference().map(|i| i.own_cpu_ns))
    }),
    Column::of("other_cpu_cores", |r| {
        opt(r.interference().and_then(|i| i.other_cpu_cores))
    }),
    Column::of("steal_ns", |r| {
        opt(r.interference().and_then(|i| i.steal_ns))
    }),
    Column::of("psi_cpu_some_us", |r| {
        opt(r.interference().and_then(|i| i.psi_cpu).map(|p| p.some_us))
    }),
    Column::of("psi_io_some_us", |r| {
        opt(r.interference().and_then(|i| i.psi_io).map(|p| p.some_us))
    }),
    Column::of("psi_memory_some_us", |r| {
        opt(r
            .interference()
            .and_then(|i| i.psi_memory)
            .map(|p| p.some_us))
    }),
    Column::of("own_read_bytes", |r| {
        opt(r.interference().map(|i| i.own_read_bytes))
    }),
    Column::of("own_write_bytes", |r| {
        opt(r.interference().map(|i| i.own_write_bytes))
    }),
    Column::of("other_device_read_bytes", |r| {
        opt(r.interference().and_then(|i| i.other_device_read_bytes))
    }),
    Column::of("other_device_write_bytes", |r| {
        opt(r.interference().and_then(|i| i.other_device_write_bytes))
    }),
    Column::of("other_runs", |r| {
        opt(r.interference().map(|i| i.other_runs))
    }),
    // The file's device, device-wide, over the trial's measured part.
    Column::of("device_read_bytes", |r| {
        opt(r.sample.child.device.map(|d| d.read_bytes))
    }),
    // The case's statistics (the JSON export's `comparisons`, `statistics`
    // and `interference`): empty for a baseline's comparison.
    Column::of("group", |r| r.statistics.group.clone()),
    Column::of("compared_with", |r| {
        opt(r.statistics.comparison.map(|c| c.baseline))
    }),
    Column::of("throughput_ratio", |r| opt(r.ratio().map(|r| r.ratio))),
    Column::of("ratio_ci95_low", |r| opt(r.ratio().map(|r| r.ci95_low))),
    Column::of("ratio_ci95_high", |r| opt(r.ratio().map(|r| r.ci95_high))),
    Column::of("pairs", |r| opt(r.ratio().map(|r| r.pairs))),
    Column::of("verdict", |r| {
        let c = r.statistics.comparison;
        c.map_or_else(String::new, |c| serde_name(&c.verdict))
    }),
    Column::of("p_value", |r| {
        opt(r.statistics.comparison.and_then(|c| c.p_value))
    }),
    Column::of("p_adjusted", |r| {
        opt(r.statistics.comparison.and_then(|c| c.p_adjusted))
    }),
    Column::of("fdr_method", |r| {
        serde_name(&r.statistics.results.statistics.adjustment)
    }),
    Column::of("fdr_family", |r| {
        r.statistics.results.statistics.family.to_string()
    }),
    Column::of("precision_target", |r| {
        opt(r.statistics.precision.map(|g| g.target))
    }),
    Column::of("precision_reached", |r| {
        opt(r.statistics.precision.map(|g| g.reached))
    }),
    Column::of("precision_half_width", |r| {
        let g = r.statistics.precision;
        opt(g.and_then(|g| g.half_width).filter(|w| w.is_finite()))
    }),
    Column::of("precision_pairs", |r| {
        opt(r.statistics.precision.map(|g| g.pairs))
    }),
    Column::of("precision_stopped_by", |r| {
        let g = r.statistics.precision;
        g.map_or_else(String::new, |g| serde_name(&g.stopped_by))
    }),
    Column::of("case_runs", |r| {
        opt(r.case.summary.as_ref().map(|s| s.runs))
    }),
    Column::of("case_interfered_trials", |r| {
        opt(r.case.interference.as_ref().map(|i| i.interfered))
    }),
    Column::of("case_interfered_share", |r| {
        let i = r.case.interference.as_ref();
        opt(i.map(|i| i.interfered as f64 / i.trials.max(1) as f64))
    }),
    Column::of("exclude_interfered", |r| {
        opt(r
            .statistics
            .results
            .settings
            .interference
            .map(|i| i.exclude))
    }),
    Column::factor("open_sync"),
    Column::factor("msync"),
    Column::factor("rate"),
    Column::factor("think_ns"),
    Column::factor("read_share"),
    Column::factor("files"),
    Column::factor("file_size_min"),
    Column::factor("file_size_max"),
    // A mixed case's bytes written, a file set's files opened.
    Column::of("bytes_written", |r| opt(r.sample.child.bytes_written)),
    Column::of("files_opened", |r| opt(r.sample.child.files_opened)),
    Column::of("own_cpu_waited_ns", |r| {
        opt(r
            .interference()
            .and_then(|i| i.own_cpu_wait)
            .map(|w| w.waited_ns))
    }),
    Column::of("own_cpu_wait_span_ns", |r| {
        opt(r
            .interference()
            .and_then(|i| i.own_cpu_wait)
            .map(|w| w.span_ns))
    }),
];

/// The header row: every column's name, in order.
pub fn header() -> Vec<&'static str> {
    COLUMNS.iter().map(|c| c.name).collect()
}

/// The CSV export as an [`super::Exporter`]: one row per sample
/// ([`write_csv`]), and beside it the claims (`<stem>-claims.csv`, when the
/// run judged any) and the per-second timelines (`<stem>-timeline.csv`,
/// when a trial recorded one).
pub struct Csv;

impl super::Exporter for Csv {
    fn name(&self) -> &'static str {
        "csv"
    }

    fn write(&self, results: &RunResults, path: &Path) -> Result<()> {
        use super::{claims_csv, timeline_csv};
        let mut first_error = None;
        let mut keep = |r: Result<()>| {
            if let Err(e) = r {
                first_error.get_or_insert(e);
            }
        };
        keep(write_csv(results, path));
        if !results.claims.is_empty() {
            keep(claims_csv::write_claims_csv(
                results,
                &claims_csv::path_beside(path),
            ));
        }
        if timeline_csv::has_timelines(results) {
            let beside = timeline_csv::path_beside(path);
            keep(timeline_csv::write_timeline_csv(results, &beside));
        }
        first_error.map_or(Ok(()), Err)
    }
}

/// Writes one row per sample of every case, under a header of [`COLUMNS`],
/// atomically. Every cell goes through [`super::csv_rows::neutralise`] ([`Rows`]).
pub fn write_csv(results: &RunResults, path: &Path) -> Result<()> {
    write_atomically(path, SHARED_MODE, |w| {
        let mut out = Rows::new(w, &header())?;
        // A factor column the table lacks is an empty cell (a test
        // proves there is none).
        let getters: Vec<Option<Getter>> = COLUMNS.iter().map(Column::getter).collect();
        // Each case's comparison and each group's precision, looked up by
        // key: linear in the cases.
        let comparisons: HashMap<usize, &ComparisonResult> = results
            .comparisons
            .iter()
            .rev()
            .map(|c| (c.other, c))
            .collect();
        let precisions: HashMap<&str, &GroupPrecision> = results
            .statistics
            .precision
            .iter()
            .rev()
            .map(|g| (g.group.as_str(), g))
            .collect();
        for case in &results.cases {
            let group = case.case.group_label();
            let statistics = CaseStatistics {
                results,
                comparison: comparisons.get(&case.id).copied(),
                precision: precisions.get(group.as_str()).copied(),
                group,
            };
            for sample in &case.samples {
                let row = Row {
                    case,
                    sample,
                    statistics: &statistics,
                };
                out.row(
                    getters
                        .iter()
                        .map(|g| g.map_or_else(String::new, |g| g.cell(&row))),
                )?;
            }
        }
        out.finish()
    })
}

/// A value's name as the JSON export spells it (`bh`, `within-noise`, `max-runs`).
fn serde_name(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        _ => String::new(),
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
        assert_eq!(header, super::header());
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
    fn each_column_is_named_once() {
        let mut names = super::header();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), COLUMNS.len());
    }

    #[test]
    fn factor_columns_are_the_factor_table_s() {
        // Each factor column is found in the table, and each column the
        // table declares has its place in the export.
        for column in COLUMNS {
            assert!(column.getter().is_some(), "{}", column.name);
        }
        let placed = |name: &str| {
            COLUMNS
                .iter()
                .any(|c| c.name == name && matches!(c.cell, Cell::Factor))
        };
        for factor in factor_table::FACTORS {
            for column in factor.columns {
                assert!(
                    placed(column.name),
                    "{} has no place in COLUMNS",
                    column.name
                );
            }
        }
    }

    #[test]
    fn every_column_is_described_in_the_docs() {
        let doc = include_str!("../../../docs/csv.md");
        for column in super::header() {
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
