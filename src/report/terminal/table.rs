//! The terminal table: the table of [`crate::report::rows`] fitted to a width, in
//! one throughput unit, one time unit per column and three significant
//! digits. Columns that would overflow the width are left out, least
//! telling first, and a line under the table names them.
use crate::report::groups::groups;
use crate::report::rows::{outlier_count, OUTLIER_NOTE};
use crate::report::units::{sig3, sig3_pm, ThroughputUnit, TimeUnit};
use crate::results::{CaseResult, CaseSummary, RunResults};

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

/// One cell per case: `f` of its summary, `None` for a case without one.
fn cells_of(
    cases: &[&CaseResult],
    f: impl Fn(&CaseResult, &CaseSummary) -> String,
) -> Vec<Option<String>> {
    cases
        .iter()
        .map(|c| c.summary.as_ref().map(|s| f(c, s)))
        .collect()
}

/// A column of times (ns, as `pick` reads them) in the one unit that suits
/// its largest, headed `header unit`; `-` where `pick` has none.
fn time_column(
    cases: &[&CaseResult],
    header: &str,
    pick: &dyn Fn(&CaseResult, &CaseSummary) -> Option<f64>,
    rank: u8,
) -> Column {
    let max = cases
        .iter()
        .filter_map(|c| c.summary.as_ref().and_then(|s| pick(c, s)))
        .fold(0.0, f64::max);
    let u = TimeUnit::for_max(max);
    Column {
        header: format!("{header} {}", u.name()),
        cells: cells_of(cases, |c, s| {
            pick(c, s).map_or_else(|| "-".to_string(), |v| sig3(v / u.ns()))
        }),
        drop_rank: Some(rank),
    }
}

/// Every column the table may show, in order.
fn columns(results: &RunResults, cases: &[&CaseResult], layout: &Layout) -> Vec<Column> {
    let mut cols = cost_columns(cases, layout);
    if crate::report::rows::shows_latency(results) {
        cols.extend(latency_columns(cases));
    }
    cols.extend([
        Column {
            header: "resident".into(),
            cells: cells_of(cases, |_, s| format!("{:.0}%", s.residency_before * 100.0)),
            drop_rank: Some(9),
        },
        Column {
            header: "n".into(),
            cells: cells_of(cases, |_, s| s.runs.to_string()),
            drop_rank: Some(7),
        },
        Column {
            header: "outliers".into(),
            cells: cells_of(cases, |_, s| match outlier_count(s) {
                0 => String::new(),
                n => n.to_string(),
            }),
            drop_rank: Some(3),
        },
    ]);
    cols
}

/// The method, its throughput and time, and what the time went to: setup,
/// sync, user and sys time, faults per MiB.
fn cost_columns(cases: &[&CaseResult], layout: &Layout) -> Vec<Column> {
    let unit = layout
        .units
        .resolve(max_of(cases, |s| s.throughput_bps.mean));
    let per = unit.bytes_per_sec();
    let time_unit = TimeUnit::for_max(max_of(cases, |s| s.time_ns.mean));
    vec![
        Column {
            header: "method".into(),
            cells: cases.iter().map(|c| Some(c.label.clone())).collect(),
            drop_rank: None,
        },
        Column {
            header: format!("{} ±95% CI", unit.name()),
            cells: cells_of(cases, |_, s| {
                let tp = &s.throughput_bps;
                sig3_pm(tp.mean / per, tp.ci95.map(|(lo, hi)| (hi - lo) / 2.0 / per))
            }),
            drop_rank: None,
        },
        Column {
            header: format!("time {} ±sd", time_unit.name()),
            cells: cells_of(cases, |_, s| {
                sig3_pm(
                    s.time_ns.mean / time_unit.ns(),
                    Some(s.time_ns.sd / time_unit.ns()),
                )
            }),
            drop_rank: None,
        },
        time_column(cases, "setup", &|_, s| Some(s.setup_ns.mean), 2),
        time_column(
            cases,
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
        time_column(cases, "user", &|_, s| Some(s.user_ns.mean), 1),
        time_column(cases, "sys", &|_, s| Some(s.sys_ns.mean), 6),
        Column {
            header: "faults/MiB".into(),
            cells: cells_of(cases, |_, s| {
                let all = s.per_mib.minflt + s.per_mib.majflt;
                if s.per_mib.majflt > 0.0 {
                    format!("{} ({} major)", sig3(all), sig3(s.per_mib.majflt))
                } else {
                    sig3(all)
                }
            }),
            drop_rank: Some(8),
        },
    ]
}

/// The mean p50 and p99 operation latency, in µs (`--latency`).
fn latency_columns(cases: &[&CaseResult]) -> Vec<Column> {
    let mut cols = Vec::new();
    for (name, pick) in [
        (
            "p50 µs",
            (|l: &crate::results::LatencySummary| l.p50_ns.mean) as fn(&_) -> f64,
        ),
        ("p99 µs", |l| l.p99_ns.mean),
    ] {
        cols.push(Column {
            header: name.into(),
            cells: cells_of(cases, |_, s| {
                s.latency
                    .as_ref()
                    .map_or_else(|| "-".to_string(), |l| sig3(pick(l) / 1e3))
            }),
            drop_rank: Some(if name.starts_with("p99") { 4 } else { 5 }),
        });
    }
    cols
}

/// The results as a table that fits `layout.width` (unless verbose), one
/// row per case under a heading line per group, then the notes.
pub fn render_terminal_table(results: &RunResults, layout: &Layout) -> String {
    let groups = groups(results);
    let cases: Vec<&CaseResult> = groups.iter().flat_map(|g| g.cases.clone()).collect();
    let mut cols = columns(results, &cases, layout);
    // Columns with nothing to show go whatever the width.
    cols.retain(|c| c.drop_rank.is_none() || !c.is_empty());
    let hidden = if layout.verbose {
        Vec::new()
    } else {
        drop_to_fit(&mut cols, layout.width)
    };
    let mut out = String::new();
    let any_outliers = push_rows(&mut out, results, &groups, &cols, layout.width);
    if results.cases.is_empty() {
        out.push_str("no cases\n");
    }
    if any_outliers && cols.iter().any(|c| c.header == "outliers") {
        push_wrapped(&mut out, OUTLIER_NOTE, layout.width);
    }
    if let Some(note) = passes_note(&groups) {
        push_wrapped(&mut out, &note, layout.width);
    }
    if !hidden.is_empty() {
        let note = format!(
            "not shown at {} columns: {} (--verbose shows every column)",
            layout.width,
            hidden.join(", ")
        );
        push_wrapped(&mut out, &note, layout.width);
    }
    push_sections(&mut out, results, layout.width);
    if !results.complete {
        push_wrapped(
            &mut out,
            "the run is incomplete (interrupted or still running): some cases may lack runs",
            layout.width,
        );
    }
    out
}

/// The note under a table whose trials repeated their pass
/// (`--min-trial-time`, 40 ms by default without `--runs`): how many passes
/// each case's trials made, per group, and which columns are a whole
/// trial's. `None` when every trial made one pass.
fn passes_note(groups: &[crate::report::groups::Group<'_>]) -> Option<String> {
    let mut parts = Vec::new();
    for g in groups {
        let cases: Vec<String> = g
            .cases
            .iter()
            .filter_map(|c| {
                let passes = c.samples.iter().map(|s| s.child.passes.unwrap_or(1));
                let (low, high) = passes.fold((u32::MAX, 0), |(l, h), p| (l.min(p), h.max(p)));
                (high > 1).then(|| match low == high {
                    true => format!("{} {low}", c.label),
                    false => format!("{} {low}–{high}", c.label),
                })
            })
            .collect();
        if !cases.is_empty() {
            let heading = g.heading.split(';').next().unwrap_or(&g.heading);
            parts.push(format!("{heading}: {}", cases.join(", ")));
        }
    }
    (!parts.is_empty()).then(|| {
        format!(
            "passes a trial (warm trials repeat theirs to a shortest time): {}; the time, setup \
             and CPU columns are a whole trial's, GiB/s and the per-MiB columns are over every \
             byte moved",
            parts.join("; ")
        )
    })
}

/// The indent of a case's row under its group's heading.
const INDENT: usize = 2;

/// Drops columns, lowest drop rank first, until the table fits `width` or
/// only columns never dropped are left; returns the dropped headers.
fn drop_to_fit(cols: &mut Vec<Column>, width: usize) -> Vec<String> {
    let total = |cols: &[Column]| -> usize {
        cols.iter().map(Column::width).sum::<usize>() + INDENT + 2 * cols.len().saturating_sub(1)
    };
    let mut hidden = Vec::new();
    while total(cols) > width {
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
    hidden
}

/// The header line, then each group's heading and its cases' rows (a case
/// without a summary says why); returns whether any row has outliers.
fn push_rows(
    out: &mut String,
    results: &RunResults,
    groups: &[crate::report::groups::Group],
    cols: &[Column],
    max: usize,
) -> bool {
    let widths: Vec<usize> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| c.width() + if i == 0 { INDENT } else { 0 })
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
    out.push_str(&line(cols.iter().map(|c| c.header.as_str()).collect(), ""));
    out.push('\n');
    let mut row = 0;
    let mut any_outliers = false;
    for group in groups {
        out.push_str(&fit(&group.heading, max));
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
    any_outliers
}

/// `text` wrapped to `max` columns, each line ended.
fn push_wrapped(out: &mut String, text: &str, max: usize) {
    for l in wrap(text, max) {
        out.push_str(&l);
        out.push('\n');
    }
}

/// The spread of threads and processes, the access footprints, where the
/// cycles go (--profile) and the per-second timelines (--duration), as in
/// the plain table, wrapped.
fn push_sections(out: &mut String, results: &RunResults, max: usize) {
    use crate::report::sections::{access, profile, spread};
    let mut section = |title: &str, lines: Vec<String>| {
        if lines.is_empty() {
            return;
        }
        out.push_str(&format!("{title}:\n"));
        for s in lines {
            push_wrapped(out, &format!("  {s}"), max);
        }
    };
    section(spread::TITLE, spread::spread_lines(results));
    section(access::TITLE, access::access_lines(results));
    let mut cycles: Vec<String> = profile::legend(results).into_iter().collect();
    cycles.extend(profile::section_lines(results));
    if profile::profile_lines(results).is_empty() {
        cycles.clear();
    }
    section(profile::TITLE, cycles);
    let timelines = access::timeline_text(results);
    if !timelines.is_empty() {
        out.push_str(&format!("{}:\n{timelines}", access::TIMELINE_TITLE));
    }
}

use crate::console::{fit, width, wrap};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn a_table_of_repeated_passes_says_how_many_and_which_columns_are_a_trial_s() {
        let mut results = fixtures::results();
        let plain = render_terminal_table(&results, &Layout::default());
        assert!(!plain.contains("passes a trial"), "{plain}");
        let label = results.cases[0].label.clone();
        for (k, s) in results.cases[0].samples.iter_mut().enumerate() {
            s.child.passes = Some(if k == 0 { 3 } else { 4 });
        }
        let table = render_terminal_table(
            &results,
            &Layout {
                width: 1000,
                ..Layout::default()
            },
        );
        let note = table
            .lines()
            .find(|l| l.starts_with("passes a trial"))
            .unwrap_or_else(|| panic!("no passes note: {table}"));
        assert!(note.contains(&format!("{label} 3–4")), "{note}");
        assert!(note.contains("CPU columns are a whole trial's"), "{note}");
    }

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
