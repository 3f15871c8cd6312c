//! Words for the threads and processes of each case (their spread, which
//! [`crate::analysis::spread`] computed into the case's summary):
//! one line per case that ran on several, shared by the text table, the
//! Markdown and the HTML report.
use crate::report::groups::groups;
use crate::report::units::{ms, num};
use crate::results::{CaseResult, RunResults, Spread};
use crate::stats::summary::Summary;

/// What the section of these lines is called.
pub(crate) const TITLE: &str = "Threads and processes";

/// `median (min–max)` of a time summary, in ms.
fn times(s: &Summary) -> String {
    format!(
        "median {} ms ({}–{} ms)",
        num(ms(s.median), 2),
        num(ms(s.min), 2),
        num(ms(s.max), 2)
    )
}

/// One case's line for `spread`, whose workers are called `what` (`whats` in the plural).
fn line(heading: &str, case: &CaseResult, (what, whats): (&str, &str), spread: &Spread) -> String {
    let mut text = format!(
        "{heading}: {}: {} {whats} × {} trials, each {what}'s time {}; slowest over fastest {} per trial (median; max {})",
        case.label,
        spread.workers,
        spread.trials,
        times(&spread.time_ns),
        num(spread.imbalance.median, 2),
        num(spread.imbalance.max, 2)
    );
    let mib = |s: &Summary| num(s.mean / 1024.0, 1);
    if let Some(rss) = &spread.max_rss_kib {
        text.push_str(&format!("; peak RSS {} MiB per process (mean)", mib(rss)));
    }
    match &spread.pss_kib {
        Some(pss) => text.push_str(&format!(", PSS {} MiB", mib(pss))),
        // Each thread unmaps as it finishes, before the processes meet to
        // read their PSS: say so rather than leave it out unexplained.
        None if spread.max_rss_kib.is_some() && case.case.threads.is_some() => {
            text.push_str(", PSS not measured with --threads (each thread unmaps as it finishes)")
        }
        None => {}
    }
    text
}

/// One line per case whose trials ran on more than one thread or process,
/// in the table's group order.
pub(crate) fn spread_lines(results: &RunResults) -> Vec<String> {
    let mut lines = Vec::new();
    for group in groups(results) {
        for case in group.cases {
            let Some(summary) = &case.summary else {
                continue;
            };
            if let Some(s) = &summary.threads {
                lines.push(line(&group.heading, case, ("thread", "threads"), s));
            }
            if let Some(s) = &summary.procs {
                lines.push(line(&group.heading, case, ("process", "processes"), s));
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use crate::results::ProcStat;

    #[test]
    fn only_cases_on_several_workers_get_a_line() {
        let mut results = fixtures::results();
        assert!(spread_lines(&results).is_empty());
        for s in &mut results.cases[0].samples {
            s.child.thread_ns = vec![2_000_000, 3_000_000];
        }
        for s in &mut results.cases[1].samples {
            s.child.procs = vec![
                ProcStat {
                    total_ns: 4_000_000,
                    max_rss_kib: 10240,
                    pss_kib: Some(5120),
                    read_bytes: None,
                },
                ProcStat {
                    total_ns: 4_000_000,
                    max_rss_kib: 10240,
                    pss_kib: Some(5120),
                    read_bytes: None,
                },
            ];
        }
        // The spread is computed into the summary (the report computes nothing).
        for case in &mut results.cases {
            if let Some(summary) = case.summary.as_mut() {
                summary.threads =
                    crate::analysis::spread::thread_spread(&case.samples).map(Box::new);
                summary.procs = crate::analysis::spread::proc_spread(&case.samples).map(Box::new);
            }
        }
        let lines = spread_lines(&results);
        assert_eq!(lines.len(), 2, "{lines:?}");
        let trials = results.cases[0].samples.len();
        assert!(
            lines[0].contains(&format!(
                "2 threads × {trials} trials, each thread's time median 2.50 ms (2.00–3.00 ms); slowest over fastest 1.50"
            )),
            "{}",
            lines[0]
        );
        assert!(lines[0].contains(&format!(": {}: 2 threads", results.cases[0].label)));
        assert!(
            lines[1].contains("2 processes")
                && lines[1].contains("slowest over fastest 1.00")
                && lines[1].contains("peak RSS 10.0 MiB per process (mean), PSS 5.0 MiB"),
            "{}",
            lines[1]
        );
        // Threads in each process: the PSS is not read, and the line says why.
        for s in &mut results.cases[1].samples {
            for p in &mut s.child.procs {
                p.pss_kib = None;
            }
        }
        results.cases[1].case.threads = Some(crate::plan::Threads {
            count: 2,
            mode: crate::plan::ThreadMode::Split,
        });
        let procs = crate::analysis::spread::proc_spread(&results.cases[1].samples);
        results.cases[1].summary.as_mut().unwrap().procs = procs.map(Box::new);
        let lines = spread_lines(&results);
        assert!(
            lines[1].contains("PSS not measured with --threads"),
            "{}",
            lines[1]
        );
    }
}
