//! Words for what each case's access pattern did (computed into its
//! summary by [`crate::analysis::access`]): operations per second and the
//! footprint, one line per case, and the per-second timeline of
//! duration-bounded cases. Shared by the text table and the Markdown report.
use crate::pattern::Pattern;
use crate::report::groups::groups;
use crate::report::units::{num, opt_num};
use crate::results::{RunResults, TimelineMean};

/// What the section of the access lines is called.
pub(crate) const TITLE: &str = "Access pattern";

/// What the timeline section is called.
pub(crate) const TIMELINE_TITLE: &str = "Per-second timeline";

/// The timeline's columns.
pub(crate) const TIMELINE_HEADERS: [&str; 7] = [
    "s",
    "reads/s",
    "major faults/s",
    "TLB shootdowns/s",
    "own storage MB/s",
    "device MB/s",
    "cgroup MiB",
];

/// Most timeline rows shown per case; longer timelines show every k-th
/// second (the timeline CSV has them all).
const MAX_ROWS: usize = 20;

/// Whether the access lines are worth showing: some case ran a pattern
/// other than the default comparison's, a trace, or for a duration.
fn interesting(results: &RunResults) -> bool {
    results.cases.iter().any(|c| {
        !matches!(c.case.pattern, Pattern::Seq | Pattern::Random)
            || c.case.duration_s.is_some()
            || c.case.trace.is_some()
    })
}

/// `12.3k`, `4.56M`: an operation rate.
fn rate(x: f64) -> String {
    if x >= 1e6 {
        format!("{}M", num(x / 1e6, 2))
    } else if x >= 1e3 {
        format!("{}k", num(x / 1e3, 1))
    } else {
        num(x, 1)
    }
}

/// One line per case: its ops/s and footprint, e.g. `zipf:1.2 4 KiB sum,
/// warm: pread: 812.4k ops/s; footprint 19.0% of the file (777 of 4096
/// blocks of 4 KiB, 3.0 MiB)`. Empty when no case ran anything but the
/// default patterns.
pub(crate) fn access_lines(results: &RunResults) -> Vec<String> {
    if !interesting(results) {
        return Vec::new();
    }
    let mut lines = Vec::new();
    for group in groups(results) {
        for case in group.cases {
            let Some(s) = &case.summary else {
                continue;
            };
            let mut parts = Vec::new();
            if let Some(ops) = &s.ops_per_s {
                parts.push(format!("{} ops/s", rate(ops.mean)));
            }
            if let Some(f) = &s.footprint {
                let unit = if case.case.trace.is_some() {
                    "pages"
                } else {
                    "blocks"
                };
                parts.push(format!(
                    "footprint {}% of the file ({} of {} {unit} of {}, {})",
                    num(f.share * 100.0, 1),
                    num(f.distinct, 0),
                    f.units,
                    crate::size::format_size(f.unit_bytes),
                    crate::size::format_size(f.bytes.round() as u64)
                ));
            }
            if parts.is_empty() {
                continue;
            }
            lines.push(format!(
                "{}: {}: {}",
                group.heading,
                case.label,
                parts.join("; ")
            ));
        }
    }
    lines
}

/// The rows of one timeline: every second, or every k-th (and the last)
/// when there are more than [`MAX_ROWS`].
fn shown(timeline: &[TimelineMean]) -> Vec<&TimelineMean> {
    let step = timeline.len().div_ceil(MAX_ROWS).max(1);
    timeline
        .iter()
        .enumerate()
        .filter(|(i, _)| i % step == step - 1 || *i + 1 == timeline.len())
        .map(|(_, p)| p)
        .collect()
}

/// The cells of one timeline row.
fn cells(p: &TimelineMean) -> Vec<String> {
    vec![
        p.second.to_string(),
        rate(p.reads_per_s),
        num(p.major_faults_per_s, 1),
        opt_num(p.tlb_shootdowns_per_s, 1),
        opt_num(p.own_read_bytes_per_s.map(|b| b / 1e6), 1),
        opt_num(p.device_read_bytes_per_s.map(|b| b / 1e6), 1),
        opt_num(p.cgroup_bytes.map(|b| b / 1048576.0), 1),
    ]
}

/// The timelines of the duration-bounded cases: for each, its title line
/// and its rows (cells in [`TIMELINE_HEADERS`] order), means over its trials.
pub(crate) fn timelines(results: &RunResults) -> Vec<(String, Vec<Vec<String>>)> {
    let mut out = Vec::new();
    for group in groups(results) {
        for case in group.cases {
            let Some(s) = case.summary.as_ref().filter(|s| !s.timeline.is_empty()) else {
                continue;
            };
            let rows: Vec<Vec<String>> = shown(&s.timeline).into_iter().map(cells).collect();
            let note = if rows.len() < s.timeline.len() {
                " (some seconds left out; the timeline CSV has all)"
            } else {
                ""
            };
            out.push((
                format!(
                    "{}: {}, mean of {} trials{note}",
                    group.heading, case.label, s.runs
                ),
                rows,
            ));
        }
    }
    out
}

/// The timelines as aligned text, indented by two spaces.
pub(crate) fn timeline_text(results: &RunResults) -> String {
    let mut out = String::new();
    for (title, rows) in timelines(results) {
        out.push_str(&format!("  {title}\n"));
        let mut widths: Vec<usize> = TIMELINE_HEADERS.iter().map(|h| h.chars().count()).collect();
        for row in &rows {
            for (i, c) in row.iter().enumerate() {
                widths[i] = widths[i].max(c.chars().count());
            }
        }
        let line = |cells: Vec<String>| {
            let padded: Vec<String> = cells
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:>w$}"))
                .collect();
            format!("    {}\n", padded.join("  "))
        };
        out.push_str(&line(
            TIMELINE_HEADERS.iter().map(|h| h.to_string()).collect(),
        ));
        for row in rows {
            out.push_str(&line(row));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_timelines_show_every_kth_second_and_the_last() {
        let t: Vec<TimelineMean> = (1..=45)
            .map(|second| TimelineMean {
                second,
                trials: 1,
                reads_per_s: 1500.0,
                major_faults_per_s: 0.0,
                tlb_shootdowns_per_s: None,
                own_read_bytes_per_s: Some(2e6),
                device_read_bytes_per_s: None,
                cgroup_bytes: None,
            })
            .collect();
        let rows = shown(&t);
        assert_eq!(
            rows.iter().map(|p| p.second).collect::<Vec<_>>(),
            [3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45]
        );
        assert_eq!(shown(&t[..5]).len(), 5);
        let c = cells(&t[0]);
        assert_eq!(c[1], "1.5k");
        assert_eq!(c[3], "-");
        assert_eq!(c[4], "2.0");
    }
}
