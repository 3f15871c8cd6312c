//! The terminal table: one row per case, grouped by the factors its cases share.
//!
//! The same rows feed the Markdown report, so both show the same columns.
//! Every number shown is read from the results; a missing one prints as `-`.
use std::collections::BTreeSet;

use super::groups::groups;
use super::units::{half_width, ms, num, plus_minus};
use crate::results::{CaseResult, CaseSummary, RunResults};

/// Bytes per GB and per GiB.
const GB: f64 = 1e9;
const GIB: f64 = (1u64 << 30) as f64;

/// The column headings, in order.
pub(crate) const HEADERS: [&str; 12] = [
    "method",
    "GB/s ±95% CI",
    "GiB/s ±95% CI",
    "time ms ±sd",
    "setup ms",
    "sync ms",
    "user ms",
    "sys ms",
    "faults/MiB",
    "resident before",
    "n",
    "outliers",
];

/// The latency columns, shown when some case recorded latency (`--latency`):
/// the means over the trials of each trial's median and 99th percentile.
pub(crate) const LATENCY_HEADERS: [&str; 2] = ["p50 µs", "p99 µs"];

/// Where the latency columns go: before "resident before".
const LATENCY_AT: usize = HEADERS.len() - 3; // the last three: resident before, n, outliers

/// Whether the table has the latency columns.
pub(crate) fn shows_latency(results: &RunResults) -> bool {
    results
        .cases
        .iter()
        .any(|c| c.summary.as_ref().is_some_and(|s| s.latency.is_some()))
}

/// The column headings of this table: [`HEADERS`], with the latency
/// columns when some case recorded latency.
pub(crate) fn headers(results: &RunResults) -> Vec<&'static str> {
    let mut h = HEADERS.to_vec();
    if shows_latency(results) {
        h.splice(LATENCY_AT..LATENCY_AT, LATENCY_HEADERS);
    }
    h
}

/// What the footnote under a table with outliers says.
pub(crate) const OUTLIER_NOTE: &str =
    "outliers: runs whose time or throughput the MAD test flagged (modified Z-score > 3.5)";

/// One row of the table.
pub(crate) enum Row {
    /// A case with a summary: one cell per column of [`HEADERS`].
    Measured(Vec<String>),
    /// A case without a summary: its label and why there is nothing to show.
    Empty {
        /// The method label.
        label: String,
        /// e.g. `no samples (2 failed)`.
        note: String,
    },
}

/// The row of one case; `latency`: whether the table has the latency
/// columns ([`shows_latency`], worked out once per table: it looks at every
/// case).
pub(crate) fn case_row(case: &CaseResult, results: &RunResults, latency: bool) -> Row {
    match &case.summary {
        Some(summary) => {
            let mut cells = summary_cells(case, summary);
            if latency {
                cells.splice(LATENCY_AT..LATENCY_AT, latency_cells(summary));
            }
            Row::Measured(cells)
        }
        None => {
            let failed = results
                .failures
                .iter()
                .filter(|f| f.case == case.id)
                .count();
            let note = if case.samples.is_empty() {
                format!("no samples ({failed} failed)")
            } else {
                format!(
                    "not summarised ({} samples, {failed} failed)",
                    case.samples.len()
                )
            };
            Row::Empty {
                label: case.label.clone(),
                note,
            }
        }
    }
}

/// Number of distinct runs flagged as outliers in the compared time or the throughput.
pub(crate) fn outlier_count(summary: &CaseSummary) -> usize {
    let flagged: BTreeSet<usize> = summary
        .time_ns
        .outliers
        .iter()
        .chain(&summary.throughput_bps.outliers)
        .copied()
        .collect();
    flagged.len()
}

fn summary_cells(case: &CaseResult, s: &CaseSummary) -> Vec<String> {
    let syncs = case
        .case
        .sync
        .is_some_and(|p| p != crate::method::SyncPolicy::None);
    let sync = match &s.sync_ns {
        Some(sync) if syncs => num(ms(sync.mean), 2),
        _ => "-".to_string(),
    };
    let tp = &s.throughput_bps;
    let tp_half = half_width(tp.ci95);
    let faults = s.per_mib.minflt + s.per_mib.majflt;
    let faults = if s.per_mib.majflt > 0.0 {
        format!("{} (major {})", num(faults, 1), num(s.per_mib.majflt, 1))
    } else {
        num(faults, 1)
    };
    let outliers = match outlier_count(s) {
        0 => String::new(),
        n => n.to_string(),
    };
    vec![
        case.label.clone(),
        plus_minus(tp.mean / GB, tp_half.map(|h| h / GB), 2),
        plus_minus(tp.mean / GIB, tp_half.map(|h| h / GIB), 2),
        plus_minus(ms(s.time_ns.mean), Some(ms(s.time_ns.sd)), 2),
        num(ms(s.setup_ns.mean), 2),
        sync,
        num(ms(s.user_ns.mean), 2),
        num(ms(s.sys_ns.mean), 2),
        faults,
        format!("{:.1}%", s.residency_before * 100.0),
        s.runs.to_string(),
        outliers,
    ]
}

/// Mean p50 and p99 latency in µs, or `-` without latency.
fn latency_cells(s: &CaseSummary) -> [String; 2] {
    match &s.latency {
        Some(l) => [num(l.p50_ns.mean / 1e3, 1), num(l.p99_ns.mean / 1e3, 1)],
        None => [
            super::units::MISSING.to_string(),
            super::units::MISSING.to_string(),
        ],
    }
}

/// Renders the results as an aligned plain-text table, one row per case,
/// under a heading line per group.
///
/// Columns: the method label; mean throughput in GB/s and GiB/s with the
/// half-width of its 95% CI (`±?` when there is none); the compared time in
/// ms with its sd; setup, sync (`-` for cases that do not sync), user and
/// sys ms (means); minor plus major faults
/// per MiB (major shown apart when any); residency before the trial; the
/// number of runs; and how many runs were flagged as outliers. With
/// `--latency`, the mean p50 and p99 operation latency in µs come before
/// the residency.
pub fn render_table(results: &RunResults) -> String {
    let groups = groups(results);
    let latency = shows_latency(results);
    let rows: Vec<Vec<Row>> = groups
        .iter()
        .map(|g| {
            g.cases
                .iter()
                .map(|c| case_row(c, results, latency))
                .collect()
        })
        .collect();

    let indent = "  ";
    let headers = headers(results);
    let mut widths: Vec<usize> = headers.iter().map(|h| width(h)).collect();
    for row in rows.iter().flatten() {
        match row {
            Row::Measured(cells) => {
                for (i, cell) in cells.iter().enumerate() {
                    let w = width(cell) + if i == 0 { indent.len() } else { 0 };
                    widths[i] = widths[i].max(w);
                }
            }
            Row::Empty { label, .. } => widths[0] = widths[0].max(indent.len() + width(label)),
        }
    }

    let mut out = String::new();
    let header: Vec<String> = headers.iter().map(|h| h.to_string()).collect();
    push_line(&mut out, &header, &widths, "");
    let mut any_outliers = false;
    for (group, rows) in groups.iter().zip(&rows) {
        out.push_str(&group.heading);
        out.push('\n');
        for row in rows {
            match row {
                Row::Measured(cells) => {
                    any_outliers |= !cells[cells.len() - 1].is_empty();
                    push_line(&mut out, cells, &widths, indent);
                }
                Row::Empty { label, note } => {
                    let line = format!(
                        "{indent}{}  {note}",
                        pad_right(label, widths[0] - indent.len())
                    );
                    out.push_str(line.trim_end());
                    out.push('\n');
                }
            }
        }
    }
    if results.cases.is_empty() {
        out.push_str("no cases\n");
    }
    if any_outliers {
        out.push_str(OUTLIER_NOTE);
        out.push('\n');
    }
    let spreads = super::sections::spread::spread_lines(results);
    if !spreads.is_empty() {
        out.push_str(&format!("{}:\n", super::sections::spread::TITLE));
        for line in spreads {
            out.push_str(&format!("  {line}\n"));
        }
    }
    let access = super::sections::access::access_lines(results);
    if !access.is_empty() {
        out.push_str(&format!("{}:\n", super::sections::access::TITLE));
        for line in access {
            out.push_str(&format!("  {line}\n"));
        }
    }
    let timelines = super::sections::access::timeline_text(results);
    if !timelines.is_empty() {
        out.push_str(&format!(
            "{}:\n{timelines}",
            super::sections::access::TIMELINE_TITLE
        ));
    }
    let cycles = super::sections::profile::section_lines(results);
    if !cycles.is_empty() {
        out.push_str(&format!("{}:\n", super::sections::profile::TITLE));
        if let Some(legend) = super::sections::profile::legend(results) {
            out.push_str(&format!("  {legend}\n"));
        }
        for line in cycles {
            out.push_str(&format!("  {line}\n"));
        }
    }
    if !results.complete {
        out.push_str(
            "the run is incomplete (interrupted or still running): some cases may lack runs\n",
        );
    }
    out
}

/// Appends one row: the first cell left-aligned after `indent`, the others right-aligned.
fn push_line(out: &mut String, cells: &[String], widths: &[usize], indent: &str) {
    let mut line = String::new();
    for (i, cell) in cells.iter().enumerate() {
        if i == 0 {
            line.push_str(indent);
            line.push_str(&pad_right(cell, widths[0] - indent.len()));
        } else {
            line.push_str("  ");
            line.push_str(&" ".repeat(widths[i] - width(cell)));
            line.push_str(cell);
        }
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

fn pad_right(s: &str, w: usize) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(width(s))))
}

/// Display width, counting characters (`±` is one column).
fn width(s: &str) -> usize {
    s.chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn shows_each_case_with_its_numbers() {
        let table = render_table(&fixtures::results());
        println!("{table}");
        assert!(
            table.contains("seq 16 KiB sum, warm; 1 GiB file"),
            "{table}"
        );
        let read = table
            .lines()
            .find(|l| l.trim_start().starts_with("read"))
            .unwrap();
        // 2e9 B/s with a CI of 1.9e9 to 2.1e9.
        assert!(read.contains("2.00 ± 0.10"), "{read}");
        assert!(read.contains("1.86 ± 0.09 "), "{read}");
        // 0.5 s with an sd of 10 ms; setup 0.25 ms; user 300 ms; sys 320 ms.
        assert!(read.contains("500.00 ± 10.00"), "{read}");
        assert!(read.contains("0.25"), "{read}");
        assert!(read.contains("300.00"), "{read}");
        assert!(read.contains("320.00"), "{read}");
        assert!(read.contains("100.0%"), "{read}");
        assert!(!read.contains("major"), "{read}");

        let mmap = table
            .lines()
            .find(|l| l.trim_start().starts_with("mmap "))
            .unwrap();
        assert!(mmap.contains("2.84 ±?"), "{mmap}");
        assert!(mmap.contains("16.0"), "{mmap}");
        assert!(
            mmap.trim_end().ends_with('1'),
            "one outlier flagged: {mmap}"
        );
        assert!(table.contains(OUTLIER_NOTE));

        let copy = table.lines().find(|l| l.contains("mmap-copy")).unwrap();
        assert!(copy.contains("no samples (2 failed)"), "{copy}");
    }

    #[test]
    fn columns_line_up() {
        let table = render_table(&fixtures::results());
        let lines: Vec<&str> = table.lines().collect();
        let header = lines[0];
        let read = lines
            .iter()
            .find(|l| l.trim_start().starts_with("read"))
            .unwrap();
        let mmap = lines
            .iter()
            .find(|l| l.trim_start().starts_with("mmap "))
            .unwrap();
        // Right-aligned columns end at the same place: the header's "n" sits
        // above the run counts.
        let n_byte = header.find("  n  ").unwrap();
        let n_end = header[..n_byte].chars().count() + 3;
        assert_eq!(read.chars().nth(n_end - 1), Some('3'), "{table}");
        assert_eq!(mmap.chars().nth(n_end - 1), Some('3'), "{table}");
        assert_eq!(width(read), n_end, "no outliers: the line ends with n");
    }

    #[test]
    fn missing_cis_and_major_faults_are_shown() {
        let mut results = fixtures::results();
        let s = results.cases[0].summary.as_mut().unwrap();
        s.per_mib.majflt = 2.0;
        s.per_mib.minflt = 14.0;
        let table = render_table(&results);
        let read = table
            .lines()
            .find(|l| l.trim_start().starts_with("read"))
            .unwrap();
        assert!(read.contains("16.0 (major 2.0)"), "{read}");
        // A missing CI is not a number; the cell says so.
        let mmap = table
            .lines()
            .find(|l| l.trim_start().starts_with("mmap "))
            .unwrap();
        assert!(mmap.contains("2.84 ±?"), "{mmap}");
    }

    #[test]
    fn a_case_with_samples_but_no_summary_says_so() {
        let mut results = fixtures::results();
        results.cases[0].summary = None;
        results.complete = false;
        let table = render_table(&results);
        assert!(
            table.contains("not summarised (3 samples, 0 failed)"),
            "{table}"
        );
        assert!(table.contains("incomplete"), "{table}");
    }

    #[test]
    fn latency_columns_appear_only_when_some_case_recorded_latency() {
        use crate::results::LatencySummary;
        let plain = fixtures::results();
        assert!(!render_table(&plain).contains("p50 µs"));
        assert_eq!(headers(&plain), HEADERS);

        let mut results = fixtures::results();
        let summary = results.cases[1].summary.as_mut().unwrap();
        summary.latency = Some(Box::new(LatencySummary {
            trials: 3,
            p50_ns: fixtures::summary(2_500.0, 10.0, None),
            p90_ns: fixtures::summary(4_000.0, 10.0, None),
            p99_ns: fixtures::summary(81_250.0, 10.0, None),
            p999_ns: fixtures::summary(120_000.0, 10.0, None),
            max_ns: fixtures::summary(900_000.0, 10.0, None),
        }));
        let table = render_table(&results);
        let header = table.lines().next().unwrap();
        assert!(
            header.contains("faults/MiB  p50 µs  p99 µs  resident before"),
            "{header}"
        );
        let mmap = table
            .lines()
            .find(|l| l.trim_start().starts_with("mmap "))
            .unwrap();
        let cells = |line: &str| -> Vec<String> {
            line.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(String::from)
                .collect()
        };
        assert_eq!(
            cells(mmap)[LATENCY_AT..LATENCY_AT + 2],
            ["2.5", "81.2"],
            "{mmap}"
        );
        let read = table
            .lines()
            .find(|l| l.trim_start().starts_with("read"))
            .unwrap();
        assert_eq!(
            cells(read)[LATENCY_AT..LATENCY_AT + 2],
            ["-", "-"],
            "read has no latency: {read}"
        );
        assert_eq!(headers(&results).len(), HEADERS.len() + 2);
        let md = crate::report::export::render_markdown(&results);
        assert!(md.contains("| p50 µs | p99 µs | resident before |"), "{md}");
    }
}
