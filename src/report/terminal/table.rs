//! The terminal table: the table of [`crate::report::rows`] fitted to a width, in
//! one throughput unit, one time unit per column and three significant
//! digits. Columns that would overflow the width are left out, least
//! telling first, and a line under the table names them.
use crate::report::groups::groups;
use crate::report::rows::{outlier_count, OUTLIER_NOTE};
use crate::report::units::{sig3, sig3_pm, ThroughputUnit, TimeUnit};
use crate::stats::analysis::CaseSummary;
use crate::stats::{CaseResult, RunResults};

/// How the terminal output is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Columns available (the terminal's width, 100 when not a terminal).
    pub width: usize,
    /// The throughput unit.
    pub units: ThroughputUnit,
    /// Every column and the full counter comparison, whatever the width.
    pub verbose: bool,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            width: DEFAULT_WIDTH,
            units: ThroughputUnit::Auto,
            verbose: false,
        }
    }
}

/// The width used when the output is not a terminal.
pub const DEFAULT_WIDTH: usize = crate::console::DEFAULT_WIDTH;

/// One column: heading, one cell per case (`None` for a case without a
/// summary) and the rank at which it is dropped when the table is too wide
/// (lower goes first; `None`: never).
struct Column {
    header: String,
    cells: Vec<Option<String>>,
    drop_rank: Option<u8>,
}

impl Column {
    fn is_empty(&self) -> bool {
        self.cells
            .iter()
            .flatten()
            .all(|c| c.is_empty() || c == "-")
    }

    fn width(&self) -> usize {
        self.cells
            .iter()
            .flatten()
            .map(|c| width(c))
            .chain([width(&self.header)])
            .max()
            .unwrap_or(0)
    }
}

/// The largest mean over the cases' summaries of `pick`.
fn max_of(cases: &[&CaseResult], pick: impl Fn(&CaseSummary) -> f64) -> f64 {
    cases
        .iter()
        .filter_map(|c| c.summary.as_ref())
        .map(pick)
        .fold(0.0, f64::max)
}

fn columns(results: &RunResults, cases: &[&CaseResult], layout: &Layout) -> Vec<Column> {
    let unit = layout
        .units
        .resolve(max_of(cases, |s| s.throughput_bps.mean));
    let per = unit.bytes_per_sec();
    let time_column =
        |header: &str, pick: &dyn Fn(&CaseResult, &CaseSummary) -> Option<f64>, rank| {
            let max = cases
                .iter()
                .filter_map(|c| c.summary.as_ref().and_then(|s| pick(c, s)))
                .fold(0.0, f64::max);
            let u = TimeUnit::for_max(max);
            Column {
                header: format!("{header} {}", u.name()),
                cells: cases
                    .iter()
                    .map(|c| {
                        c.summary.as_ref().map(|s| {
                            pick(c, s).map_or_else(|| "-".to_string(), |v| sig3(v / u.ns()))
                        })
                    })
                    .collect(),
                drop_rank: Some(rank),
            }
        };
    let cells = |f: &dyn Fn(&CaseResult, &CaseSummary) -> String| -> Vec<Option<String>> {
        cases
            .iter()
            .map(|c| c.summary.as_ref().map(|s| f(c, s)))
            .collect()
    };
    let time_unit = TimeUnit::for_max(max_of(cases, |s| s.time_ns.mean));
    let mut cols = vec![
        Column {
            header: "method".into(),
            cells: cases.iter().map(|c| Some(c.label.clone())).collect(),
            drop_rank: None,
        },
        Column {
            header: format!("{} ±95% CI", unit.name()),
            cells: cells(&|_, s| {
                let tp = &s.throughput_bps;
                sig3_pm(tp.mean / per, tp.ci95.map(|(lo, hi)| (hi - lo) / 2.0 / per))
            }),
            drop_rank: None,
        },
        Column {
            header: format!("time {} ±sd", time_unit.name()),
            cells: cells(&|_, s| {
                sig3_pm(
                    s.time_ns.mean / time_unit.ns(),
                    Some(s.time_ns.sd / time_unit.ns()),
                )
            }),
            drop_rank: None,
        },
        time_column("setup", &|_, s| Some(s.setup_ns.mean), 2),
        time_column(
            "sync",
            &|c, s| {
                let syncs = c
                    .case
                    .sync
                    .is_some_and(|p| p != crate::method::SyncPolicy::None);
                s.sync_ns.as_ref().filter(|_| syncs).map(|x| x.mean)
            },
            0,
        ),
        time_column("user", &|_, s| Some(s.user_ns.mean), 1),
        time_column("sys", &|_, s| Some(s.sys_ns.mean), 6),
        Column {
            header: "faults/MiB".into(),
            cells: cells(&|_, s| {
                let all = s.per_mib.minflt + s.per_mib.majflt;
                if s.per_mib.majflt > 0.0 {
                    format!("{} ({} major)", sig3(all), sig3(s.per_mib.majflt))
                } else {
                    sig3(all)
                }
            }),
            drop_rank: Some(8),
        },
    ];
    if crate::report::rows::shows_latency(results) {
        for (name, pick) in [
            (
                "p50 µs",
                (|l: &crate::stats::latency::LatencySummary| l.p50_ns.mean) as fn(&_) -> f64,
            ),
            ("p99 µs", |l| l.p99_ns.mean),
        ] {
            cols.push(Column {
                header: name.into(),
                cells: cells(&|_, s| {
                    s.latency
                        .as_ref()
                        .map_or_else(|| "-".to_string(), |l| sig3(pick(l) / 1e3))
                }),
                drop_rank: Some(if name.starts_with("p99") { 4 } else { 5 }),
            });
        }
    }
    cols.extend([
        Column {
            header: "resident".into(),
            cells: cells(&|_, s| format!("{:.0}%", s.residency_before * 100.0)),
            drop_rank: Some(9),
        },
        Column {
            header: "n".into(),
            cells: cells(&|_, s| s.runs.to_string()),
            drop_rank: Some(7),
        },
        Column {
            header: "outliers".into(),
            cells: cells(&|_, s| match outlier_count(s) {
                0 => String::new(),
                n => n.to_string(),
            }),
            drop_rank: Some(3),
        },
    ]);
    cols
}

/// The results as a table that fits `layout.width` (unless verbose), one
/// row per case under a heading line per group, then the notes.
pub fn render_terminal_table(results: &RunResults, layout: &Layout) -> String {
    let groups = groups(results);
    let cases: Vec<&CaseResult> = groups.iter().flat_map(|g| g.cases.clone()).collect();
    let indent = 2;
    let mut cols = columns(results, &cases, layout);
    // Columns with nothing to show go whatever the width.
    cols.retain(|c| c.drop_rank.is_none() || !c.is_empty());
    let total = |cols: &[Column]| -> usize {
        cols.iter().map(Column::width).sum::<usize>() + indent + 2 * cols.len().saturating_sub(1)
    };
    let mut hidden = Vec::new();
    if !layout.verbose {
        while total(&cols) > layout.width {
            let next = cols
                .iter()
                .enumerate()
                .filter_map(|(i, c)| c.drop_rank.map(|r| (r, i)))
                .min();
            match next {
                Some((_, i)) => hidden.push(cols.remove(i).header),
                None => break,
            }
        }
    }
    let widths: Vec<usize> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| c.width() + if i == 0 { indent } else { 0 })
        .collect();
    let line = |cells: Vec<&str>, pad: &str| -> String {
        let mut s = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i == 0 {
                s.push_str(pad);
                s.push_str(cell);
                s.push_str(&" ".repeat(widths[0].saturating_sub(pad.len() + width(cell))));
            } else {
                s.push_str("  ");
                s.push_str(&" ".repeat(widths[i].saturating_sub(width(cell))));
                s.push_str(cell);
            }
        }
        s.trim_end().to_string()
    };
    let mut out = String::new();
    out.push_str(&line(cols.iter().map(|c| c.header.as_str()).collect(), ""));
    out.push('\n');
    let mut row = 0;
    let mut any_outliers = false;
    for group in &groups {
        out.push_str(&fit(&group.heading, layout.width));
        out.push('\n');
        for case in &group.cases {
            if cols[0].cells[row].is_some() && cols.iter().all(|c| c.cells[row].is_some()) {
                let cells: Vec<&str> = cols
                    .iter()
                    .map(|c| c.cells[row].as_deref().unwrap_or(""))
                    .collect();
                any_outliers |= case.summary.as_ref().is_some_and(|s| outlier_count(s) > 0);
                out.push_str(&line(cells, "  "));
            } else {
                let note = match crate::report::rows::case_row(case, results, false) {
                    crate::report::rows::Row::Empty { note, .. } => note,
                    crate::report::rows::Row::Measured(_) => String::new(),
                };
                out.push_str(format!("  {}  {note}", case.label).trim_end());
            }
            out.push('\n');
            row += 1;
        }
    }
    if results.cases.is_empty() {
        out.push_str("no cases\n");
    }
    if any_outliers && cols.iter().any(|c| c.header == "outliers") {
        for l in wrap(OUTLIER_NOTE, layout.width) {
            out.push_str(&l);
            out.push('\n');
        }
    }
    if !hidden.is_empty() {
        let note = format!(
            "not shown at {} columns: {} (--verbose shows every column)",
            layout.width,
            hidden.join(", ")
        );
        for l in wrap(&note, layout.width) {
            out.push_str(&l);
            out.push('\n');
        }
    }
    let spreads = crate::report::sections::spread::spread_lines(results);
    if !spreads.is_empty() {
        out.push_str(&format!("{}:\n", crate::report::sections::spread::TITLE));
        for s in spreads {
            for l in wrap(&format!("  {s}"), layout.width) {
                out.push_str(&l);
                out.push('\n');
            }
        }
    }
    // The access footprints, per-second timelines (--duration) and where
    // the cycles go (--profile), as in the plain table, wrapped.
    let mut section = |title: &str, lines: Vec<String>| {
        if lines.is_empty() {
            return;
        }
        out.push_str(&format!("{title}:\n"));
        for s in lines {
            for l in wrap(&format!("  {s}"), layout.width) {
                out.push_str(&l);
                out.push('\n');
            }
        }
    };
    section(
        crate::report::sections::access::TITLE,
        crate::report::sections::access::access_lines(results),
    );
    let mut cycles: Vec<String> = crate::report::sections::profile::legend(results)
        .into_iter()
        .collect();
    cycles.extend(crate::report::sections::profile::section_lines(results));
    if crate::report::sections::profile::profile_lines(results).is_empty() {
        cycles.clear();
    }
    section(crate::report::sections::profile::TITLE, cycles);
    let timelines = crate::report::sections::access::timeline_text(results);
    if !timelines.is_empty() {
        out.push_str(&format!(
            "{}:\n{timelines}",
            crate::report::sections::access::TIMELINE_TITLE
        ));
    }
    if !results.complete {
        for l in wrap(
            "the run is incomplete (interrupted or still running): some cases may lack runs",
            layout.width,
        ) {
            out.push_str(&l);
            out.push('\n');
        }
    }
    out
}

use crate::console::{fit, width, wrap};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn fits_the_width_and_says_what_it_left_out() {
        let results = fixtures::results();
        for w in [60, 80, 100] {
            let layout = Layout {
                width: w,
                ..Layout::default()
            };
            let table = render_terminal_table(&results, &layout);
            for line in table.lines() {
                assert!(width(line) <= w, "{w}: {line:?}\n{table}");
            }
        }
        let narrow = render_terminal_table(
            &results,
            &Layout {
                width: 60,
                ..Layout::default()
            },
        );
        assert!(narrow.contains("not shown at 60 columns"), "{narrow}");
        let wide = render_terminal_table(
            &results,
            &Layout {
                width: 200,
                ..Layout::default()
            },
        );
        assert!(!wide.contains("not shown"), "{wide}");
    }

    #[test]
    fn one_throughput_unit_and_one_time_unit_per_column() {
        let results = fixtures::results();
        let table = render_terminal_table(&results, &Layout::default());
        let header = table.lines().next().unwrap();
        // 2e9 B/s is 1.86 GiB/s; only GiB/s is shown.
        assert!(header.contains("GiB/s ±95% CI"), "{header}");
        assert!(!header.contains("GB/s"), "{header}");
        assert!(header.contains("time ms ±sd"), "{header}");
        let read = table
            .lines()
            .find(|l| l.trim_start().starts_with("read"))
            .unwrap();
        assert!(read.contains("1.86 ± 0.09"), "{read}");
        assert!(read.contains("500 ± 10"), "{read}");
        let mb = render_terminal_table(
            &results,
            &Layout {
                units: ThroughputUnit::MbPerSec,
                ..Layout::default()
            },
        );
        assert!(mb.lines().next().unwrap().contains("MB/s ±95% CI"), "{mb}");
        assert!(mb.contains("2000 ± 100"), "{mb}");
    }
}
